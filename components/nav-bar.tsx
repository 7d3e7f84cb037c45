import Link from "next/link";
import { GlobalSearch } from "./search/global-search";

const LINKS = [
  { href: "/", label: "Environments" },
  { href: "/lineage", label: "Lineage" },
  { href: "/timeline", label: "Timeline" },
  { href: "/compare", label: "Compare" },
  { href: "/metrics", label: "Metrics" },
  { href: "/audit", label: "Audit" },
] as const;

export function NavBar({ right }: { right?: React.ReactNode }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/" className="text-lg font-semibold tracking-tight text-slate-900">
          Drift<span className="text-amber-700">watch</span>
        </Link>
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {LINKS.map((l) => (
            <li key={l.href}>
              <Link href={l.href} className="inline-block rounded px-1 py-1 text-slate-600 hover:text-slate-900 hover:underline">
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="ml-auto flex items-center gap-4 text-sm">
          <GlobalSearch />
          {right}
        </div>
      </nav>
    </header>
  );
}
