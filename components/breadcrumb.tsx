import Link from "next/link";

/** "Environments / production / Deployment shop/api": the way back up, the current page last. */
export function Breadcrumb({ trail, current }: { trail: ReadonlyArray<{ href: string; label: string }>; current: string }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-slate-500">
      {trail.map((t) => (
        <span key={t.href}>
          <Link href={t.href} className="inline-block py-0.5 hover:underline">
            {t.label}
          </Link>{" "}
          /{" "}
        </span>
      ))}
      <span aria-current="page">{current}</span>
    </nav>
  );
}
