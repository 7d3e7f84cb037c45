"use client";
// The drift table of one environment: one row per drifted object, sortable
// column headers (buttons, so the keyboard reaches them), a checkbox per row
// for claiming. Presentational: filters, paging and data live in the page.
//
// Keyboard: the rows are one tab stop (a roving tabindex): the arrow keys,
// Home and End move between rows, Enter opens the focused row's object and
// Space selects it for claiming. Keys pressed inside a row's own controls
// (its checkbox, its link) keep their usual meaning.
import { useRef, useState, type KeyboardEvent } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { DriftItemDto, DriftSort } from "@/lib/api/contract";
import { applicationPagePath, objectPagePath } from "@/lib/dashboard/object-key";
import { DriftTypeBadge, Pill } from "./status-badge";
import { Ago } from "./time";

const COLUMNS: Array<{ label: string; sort: DriftSort | null; className?: string }> = [
  { label: "Type", sort: "type" },
  { label: "Object", sort: "key" },
  { label: "Application", sort: null },
  { label: "Changed fields", sort: null, className: "hidden lg:table-cell" },
  { label: "Attribution", sort: "manager" },
  { label: "First seen", sort: "openedAt" },
  { label: "Owner", sort: null },
];

// A selected row is tinted; its grey secondary text (times, managers) turns one
// shade darker so it keeps 4.5:1 on the tint (WCAG AA; slate-500 on blue-50 is 4.4).
const SELECTED_ROW = "bg-blue-50 [&_.text-slate-500]:text-slate-600";

export function DriftTable({
  items,
  now,
  sort,
  dir,
  onSort,
  selected,
  onSelect,
  selectable,
  showApplication,
}: {
  items: DriftItemDto[];
  now: number;
  sort: DriftSort;
  dir: "asc" | "desc";
  onSort: (sort: DriftSort) => void;
  selected: ReadonlySet<string>;
  onSelect: (id: string, on: boolean) => void;
  selectable: boolean;
  /** The environment holds several applications: each row says whose object it is. */
  showApplication: boolean;
}) {
  const columns = showApplication ? COLUMNS : COLUMNS.filter((c) => c.label !== "Application");
  const router = useRouter();
  const [current, setCurrent] = useState(0);
  const rows = useRef<Array<HTMLTableRowElement | null>>([]);
  // Rows come and go with live updates: the tab stop stays on a row that exists.
  const active = Math.min(current, Math.max(0, items.length - 1));
  const move = (to: number) => {
    const next = Math.max(0, Math.min(items.length - 1, to));
    setCurrent(next);
    rows.current[next]?.focus();
  };
  const onRowKey = (e: KeyboardEvent<HTMLTableRowElement>, index: number, d: DriftItemDto) => {
    if (e.target !== e.currentTarget || e.altKey || e.ctrlKey || e.metaKey) return;
    const to = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      move(to);
    } else if (e.key === "Enter") {
      e.preventDefault();
      router.push(objectPagePath(d.environment, d.key));
    } else if (e.key === " " && selectable && d.resolvedAt === null) {
      e.preventDefault();
      onSelect(d.id, !selected.has(d.id));
    }
  };
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-left text-sm">
        <caption className="sr-only">Drift items; column headers with a button sort the table; in the rows, the arrow keys move, Enter opens the object and Space selects it</caption>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-600">
          <tr>
            {selectable && (
              <th scope="col" className="w-8 px-3 py-2">
                <span className="sr-only">Select</span>
              </th>
            )}
            {columns.map((c) => (
              <th
                key={c.label}
                scope="col"
                className={`px-3 py-2 font-medium ${c.className ?? ""}`}
                aria-sort={c.sort && c.sort === sort ? (dir === "asc" ? "ascending" : "descending") : undefined}
              >
                {c.sort ? (
                  <button type="button" onClick={() => onSort(c.sort!)} className="inline-flex min-h-6 items-center gap-1 uppercase hover:text-slate-900">
                    {c.label}
                    <span aria-hidden="true" className={c.sort === sort ? "text-slate-900" : "text-slate-300"}>
                      {c.sort === sort && dir === "desc" ? "▼" : "▲"}
                    </span>
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {items.map((d, index) => {
            const fields = d.changes.map((c) => c.display);
            return (
              <tr
                key={d.id}
                ref={(el) => {
                  rows.current[index] = el;
                }}
                tabIndex={index === active ? 0 : -1}
                aria-label={`${d.type} ${d.kind} ${d.namespace ? `${d.namespace}/` : ""}${d.name}`}
                onFocus={(e) => {
                  if (e.target === e.currentTarget) setCurrent(index);
                }}
                onKeyDown={(e) => onRowKey(e, index, d)}
                className={selected.has(d.id) ? SELECTED_ROW : "hover:bg-slate-50"}
              >
                {selectable && (
                  <td className="px-3 py-2 align-top">
                    <input
                      type="checkbox"
                      aria-label={`Select ${d.kind} ${d.namespace}/${d.name}`}
                      checked={selected.has(d.id)}
                      onChange={(e) => onSelect(d.id, e.target.checked)}
                      disabled={d.resolvedAt !== null}
                    />
                  </td>
                )}
                <td className="px-3 py-2 align-top">
                  <DriftTypeBadge type={d.type} />
                  {d.conflict && (
                    <span className="ml-1" title={`Fight between ${d.conflict.managers.join(" and ")} (${d.conflict.flips} flips)`}>
                      <Pill tone="red">fight</Pill>
                    </span>
                  )}
                </td>
                <td className="max-w-xs px-3 py-2 align-top">
                  <Link href={objectPagePath(d.environment, d.key)} className="font-medium text-blue-700 hover:underline">
                    {d.kind} {d.namespace ? `${d.namespace}/` : ""}
                    {d.name}
                  </Link>
                  {d.group && <span className="block text-xs text-slate-500">{d.group}</span>}
                  {d.resolvedAt && (
                    <span className="block text-xs text-slate-500">
                      resolved ({d.resolution}) <Ago iso={d.resolvedAt} now={now} />
                    </span>
                  )}
                </td>
                {showApplication && (
                  <td className="px-3 py-2 align-top">
                    {d.application ? (
                      <Link href={applicationPagePath(d.environment, d.application)} className="text-blue-700 hover:underline">
                        {d.application}
                      </Link>
                    ) : (
                      <span className="text-xs text-slate-500" title="No application's desired state declares this object">
                        none
                      </span>
                    )}
                  </td>
                )}
                <td className="hidden max-w-md px-3 py-2 align-top font-mono text-xs text-slate-700 lg:table-cell">
                  {fields.length === 0 ? (
                    <span className="font-sans text-slate-500">{d.type === "Missing" ? "whole object missing from the cluster" : d.type === "Extra" ? "whole object not in Git" : "—"}</span>
                  ) : (
                    <>
                      {fields.slice(0, 3).map((f) => (
                        <span key={f} className="block truncate" title={f}>
                          {f}
                        </span>
                      ))}
                      {fields.length > 3 && <span className="font-sans text-slate-500">and {fields.length - 3} more</span>}
                    </>
                  )}
                  {Object.values(d.ignored).some((n) => n > 0) && (
                    <span className="mt-1 block font-sans text-slate-500">
                      ignored:{" "}
                      {Object.entries(d.ignored)
                        .filter(([, n]) => n > 0)
                        .map(([rule, n]) => `${rule} (${n})`)
                        .join(", ")}
                    </span>
                  )}
                </td>
                <td className="px-3 py-2 align-top">
                  {d.attribution.manager ? (
                    <>
                      <code className="text-xs">{d.attribution.manager}</code>{" "}
                      {d.attribution.class && <Pill tone={d.attribution.class === "human" ? "amber" : "slate"}>{d.attribution.class}</Pill>}
                      {d.attribution.time && (
                        <span className="block text-xs text-slate-500">
                          <Ago iso={d.attribution.time} now={now} />
                        </span>
                      )}
                    </>
                  ) : (
                    <span className="text-xs text-slate-500" title="The cluster recorded no manager for these fields">
                      not recorded
                    </span>
                  )}
                </td>
                <td className="whitespace-nowrap px-3 py-2 align-top">
                  <Ago iso={d.openedAt} now={now} />
                  {d.reopenCount > 0 && <span className="block text-xs text-slate-500">reopened {d.reopenCount}×</span>}
                </td>
                <td className="px-3 py-2 align-top">
                  {d.claim ? (
                    <span title={d.claim.reason}>
                      {d.claim.owner.displayName ?? d.claim.owner.username}
                      <span className="block text-xs text-slate-500">
                        {d.claim.returnPath} · {d.claim.expired ? "expired " : "until "}
                        <Ago iso={d.claim.expiresAt} now={now} />
                      </span>
                    </span>
                  ) : d.resolvedAt ? (
                    <span className="text-slate-500">—</span>
                  ) : (
                    <Pill tone="red">unowned</Pill>
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
