import type { ReactNode } from "react";

/** One section of the printed report: never split from its heading, and said plainly when empty. */
export function ReportSection({ id, title, empty, children, newPage = false }: { id: string; title: string; empty: string | null; children: ReactNode; newPage?: boolean }) {
  return (
    <section aria-labelledby={`${id}-title`} className={`report-section space-y-2 ${newPage ? "report-new-page" : ""}`}>
      <h2 id={`${id}-title`} className="text-lg font-semibold text-slate-900">
        {title}
      </h2>
      {empty ? <p className="text-sm text-slate-600 italic">{empty}</p> : children}
    </section>
  );
}

export function ReportTable({ caption, columns, children }: { caption: string; columns: readonly string[]; children: ReactNode }) {
  return (
    <table className="report-table w-full border-collapse text-left text-sm">
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr className="border-b-2 border-slate-300 text-xs text-slate-600">
          {columns.map((c) => (
            <th key={c} scope="col" className="px-2 py-1 font-semibold">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-200 align-top">{children}</tbody>
    </table>
  );
}

export const cell = "px-2 py-1";
