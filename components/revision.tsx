import Link from "next/link";
import type { RevisionDto } from "@/lib/api/contract";

/** A commit links to its page; a chart version (a chart from a Helm repository) is shown as it is. */
export function RevisionText({ value }: { value: string | null }) {
  if (!value) return <span className="text-slate-500">—</span>;
  return /^[0-9a-f]{40}$/.test(value) ? <ShaLink sha={value} /> : <span className="font-mono text-sm">{value}</span>;
}

export function ShaLink({ sha, className }: { sha: string; className?: string }) {
  return (
    <Link href={`/commits/${sha}`} className={`font-mono text-sm text-blue-700 hover:underline ${className ?? ""}`} title={sha}>
      {sha.slice(0, 7)}
    </Link>
  );
}

/** "abc1234 Promote api 1.4 — Linus Torvalds" with the age rendered by the caller. */
export function RevisionLine({ rev, children }: { rev: RevisionDto | null; children?: React.ReactNode }) {
  if (!rev) return <span className="text-slate-500">unknown</span>;
  return (
    <span className="flex min-w-0 flex-wrap items-baseline gap-x-2">
      <ShaLink sha={rev.sha} />
      <span className="min-w-0 max-w-full truncate text-slate-800" title={rev.message ?? undefined}>
        {rev.message ?? <em className="text-slate-500">commit not fetched yet</em>}
      </span>
      {rev.authorName && <span className="text-xs text-slate-500">{rev.authorName}</span>}
      {children}
    </span>
  );
}
