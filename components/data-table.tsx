import type { ReactNode } from "react";

/**
 * The dashboard's plain table: a bordered, horizontally scrollable box, a
 * header row of column names, body rows separated by lines. Rows are the
 * caller's `<tr>`s.
 */
export function DataTable({ columns, caption, children }: { columns: readonly ReactNode[]; caption?: string; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-left text-sm">
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead className="bg-slate-50 text-xs text-slate-600">
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className="px-3 py-2 font-medium">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}
