"use client";
// Desired (Git) and live side by side. Changed rows are highlighted; the first
// row of each reported change carries its attribution in the margin, so "who
// changed this line" is read where the line is.
import type { ChangeDto, DiffRowDto } from "@/lib/api/contract";
import { Ago } from "./time";

const ROW: Record<DiffRowDto["kind"], { left: string; right: string }> = {
  same: { left: "", right: "" },
  changed: { left: "bg-red-50", right: "bg-green-50" },
  removed: { left: "bg-red-50", right: "bg-slate-50" },
  added: { left: "bg-slate-50", right: "bg-green-50" },
};

export function YamlDiffView({ rows, changes, now, leftTitle, rightTitle }: { rows: DiffRowDto[]; changes: ChangeDto[]; now: number; leftTitle: string; rightTitle: string }) {
  const labelled = new Set<number>();
  return (
    // relative: the screen-reader labels in the cells are positioned absolutely; without a positioned
    // ancestor they escape this scrolling box and widen the whole page on a phone.
    <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full min-w-[52rem] border-collapse font-mono text-xs leading-5">
        <caption className="sr-only">
          {leftTitle} on the left, {rightTitle} on the right; highlighted rows differ, with who changed them
        </caption>
        <colgroup>
          <col className="w-10" />
          <col className="w-[40%]" />
          <col className="w-10" />
          <col className="w-[40%]" />
          <col />
        </colgroup>
        <thead className="bg-slate-50 font-sans text-xs text-slate-600">
          <tr>
            <th scope="col" colSpan={2} className="px-2 py-1.5 text-left font-medium">
              {leftTitle}
            </th>
            <th scope="col" colSpan={2} className="border-l border-slate-200 px-2 py-1.5 text-left font-medium">
              {rightTitle}
            </th>
            <th scope="col" className="border-l border-slate-200 px-2 py-1.5 text-left font-medium">
              Changed by
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => {
            const style = ROW[r.kind];
            const c = r.change !== null ? changes[r.change] : undefined;
            const first = r.change !== null && !labelled.has(r.change);
            if (r.change !== null) labelled.add(r.change);
            return (
              <tr key={i} className={r.kind !== "same" ? "font-medium" : undefined}>
                <td className={`select-none px-2 text-right text-slate-600 ${style.left}`}>{r.left?.line ?? ""}</td>
                <td className={`whitespace-pre px-2 ${style.left}`}>
                  {r.kind !== "same" && r.left && <span className="sr-only">Git: </span>}
                  {r.left?.text ?? ""}
                </td>
                <td className={`select-none border-l border-slate-200 px-2 text-right text-slate-600 ${style.right}`}>{r.right?.line ?? ""}</td>
                <td className={`whitespace-pre px-2 ${style.right}`}>
                  {r.kind !== "same" && r.right && <span className="sr-only">Live: </span>}
                  {r.right?.text ?? ""}
                </td>
                <td className="whitespace-nowrap border-l border-slate-200 px-2 font-sans">
                  {c && first && (
                    <span title={c.display}>
                      {c.attribution.manager ? <code>{c.attribution.manager}</code> : <span className="text-slate-500">not recorded</span>}
                      {c.attribution.subresource && <span className="text-slate-500"> /{c.attribution.subresource}</span>}
                      {c.attribution.time && (
                        <>
                          {" "}
                          <Ago iso={c.attribution.time} now={now} className="text-slate-500" />
                        </>
                      )}
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
