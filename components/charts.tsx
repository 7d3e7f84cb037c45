// Small inline-SVG charts (no chart library): each scales to its container,
// has a text summary for screen readers, and its numbers in a table under it.
import type { ReactNode } from "react";

// Series colours as Tailwind classes (a fill for the SVG, a background for the
// legend), so the dark theme's palette (app/dark-theme.css) recolours them too.
const PALETTE = [
  { fill: "fill-amber-700", swatch: "bg-amber-700" },
  { fill: "fill-blue-600", swatch: "bg-blue-600" },
  { fill: "fill-green-700", swatch: "bg-green-700" },
  { fill: "fill-violet-600", swatch: "bg-violet-600" },
  { fill: "fill-rose-700", swatch: "bg-rose-700" },
  { fill: "fill-cyan-600", swatch: "bg-cyan-600" },
  { fill: "fill-lime-700", swatch: "bg-lime-700" },
  { fill: "fill-purple-600", swatch: "bg-purple-600" },
] as const;
const colour = (i: number) => PALETTE[i % PALETTE.length]!;

const TOP = 14;

/** Axis labels: whole numbers stay whole, halves of small maxima get one decimal. */
const tick = (v: number) => (Number.isInteger(v) ? v.toLocaleString() : v.toFixed(1));

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  const n = v / p;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
}

export function ChartFrame({ title, summary, children, table }: { title: string; summary: string; children: ReactNode; table?: ReactNode }) {
  return (
    <figure className="rounded-lg border border-slate-200 bg-white p-4">
      <figcaption className="mb-1 text-base font-semibold">{title}</figcaption>
      <p className="mb-3 text-sm text-slate-600">{summary}</p>
      {children}
      {table && (
        <details className="mt-2 text-sm">
          <summary className="cursor-pointer text-slate-600">Numbers</summary>
          <div className="mt-2 overflow-x-auto">{table}</div>
        </details>
      )}
    </figure>
  );
}

/** Horizontal bars with an optional whisker (e.g. median bar, p90 whisker). */
export function HBarChart({ rows, format, label }: { rows: Array<{ label: string; value: number; whisker?: number | null; note?: string }>; format: (v: number) => string; label: string }) {
  const max = niceMax(Math.max(1, ...rows.map((r) => Math.max(r.value, r.whisker ?? 0))));
  const rowH = 30;
  const left = 150;
  const width = 640;
  const plot = width - left - 90;
  return (
    <svg viewBox={`0 0 ${width} ${rows.length * rowH + 24}`} className="h-auto w-full" role="img" aria-label={label}>
      {[0, 0.5, 1].map((f) => (
        <g key={f}>
          <line x1={left + f * plot} x2={left + f * plot} y1={0} y2={rows.length * rowH} className="stroke-slate-200" />
          <text x={left + f * plot} y={rows.length * rowH + 16} fontSize={11} textAnchor="middle" className="fill-slate-500">
            {format(f * max)}
          </text>
        </g>
      ))}
      {rows.map((r, i) => {
        const y = i * rowH + 6;
        const w = (r.value / max) * plot;
        return (
          <g key={r.label}>
            <text x={left - 8} y={y + 13} fontSize={12} textAnchor="end" className="fill-slate-900">
              {r.label}
            </text>
            <rect x={left} y={y} width={Math.max(w, 1)} height={18} rx={2} className={colour(i).fill} />
            {r.whisker !== undefined && r.whisker !== null && r.whisker > r.value && (
              <line x1={left + w} x2={left + (r.whisker / max) * plot} y1={y + 9} y2={y + 9} className="stroke-slate-700" strokeWidth={1.5} strokeDasharray="3 2" />
            )}
            <text x={left + Math.max(w, (r.whisker ?? 0) / max * plot) + 6} y={y + 13} fontSize={11} className="fill-slate-700">
              {format(r.value)}
              {r.note ? ` ${r.note}` : ""}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Vertical bars: a distribution over labelled buckets. */
export function ColumnChart({ columns, label }: { columns: Array<{ label: string; value: number }>; label: string }) {
  const max = niceMax(Math.max(1, ...columns.map((c) => c.value)));
  const width = 640;
  const height = 220;
  const bottom = 30;
  const colW = (width - 40) / Math.max(1, columns.length);
  return (
    <svg viewBox={`0 ${-TOP} ${width} ${height + TOP}`} className="h-auto w-full" role="img" aria-label={label}>
      <Gridlines width={width} plotHeight={height - bottom} max={max} />
      {columns.map((c, i) => {
        const h = (c.value / max) * (height - bottom - 10);
        const x = 40 + i * colW;
        return (
          <g key={c.label}>
            <rect x={x + colW * 0.15} y={height - bottom - h} width={colW * 0.7} height={Math.max(h, 0.5)} rx={2} className="fill-amber-700" />
            <text x={x + colW / 2} y={height - bottom - h - 4} fontSize={11} textAnchor="middle" className="fill-slate-700">
              {c.value}
            </text>
            <text x={x + colW / 2} y={height - 10} fontSize={11} textAnchor="middle" className="fill-slate-700">
              {c.label}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Horizontal lines at 0, half and the top of a column chart's scale, labelled on the left. */
function Gridlines({ width, plotHeight, max }: { width: number; plotHeight: number; max: number }) {
  return (
    <>
      {[0, 0.5, 1].map((f) => (
        <g key={f}>
          <line x1={30} x2={width} y1={plotHeight * (1 - f)} y2={plotHeight * (1 - f)} className="stroke-slate-200" />
          <text x={26} y={plotHeight * (1 - f) + 4} fontSize={11} textAnchor="end" className="fill-slate-500">
            {tick(f * max)}
          </text>
        </g>
      ))}
    </>
  );
}

/** Stacked columns per period (e.g. manual edits per week, stacked by manager). */
export function StackedColumns({ periods, series, label }: { periods: string[]; series: Array<{ name: string; values: number[] }>; label: string }) {
  const totals = periods.map((_, i) => series.reduce((s, x) => s + (x.values[i] ?? 0), 0));
  const max = niceMax(Math.max(1, ...totals));
  const width = 640;
  const height = 220;
  const bottom = 30;
  const colW = (width - 40) / Math.max(1, periods.length);
  return (
    <div>
      <svg viewBox={`0 ${-TOP} ${width} ${height + TOP}`} className="h-auto w-full" role="img" aria-label={label}>
        <Gridlines width={width} plotHeight={height - bottom} max={max} />
        {periods.map((p, i) => {
          let y = height - bottom;
          const x = 40 + i * colW;
          return (
            <g key={p}>
              {series.map((s, si) => {
                const v = s.values[i] ?? 0;
                const h = (v / max) * (height - bottom - 10);
                y -= h;
                return v > 0 ? (
                  <rect key={s.name} x={x + colW * 0.15} y={y} width={colW * 0.7} height={h} className={colour(si).fill}>
                    <title>{`${s.name}: ${v} in the week of ${p}`}</title>
                  </rect>
                ) : null;
              })}
              <text x={x + colW / 2} y={height - 10} fontSize={10} textAnchor="middle" className="fill-slate-700">
                {p.slice(5)}
              </text>
            </g>
          );
        })}
      </svg>
      <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Legend">
        {series.map((s, i) => (
          <li key={s.name} className="inline-flex items-center gap-1">
            <span aria-hidden="true" className={`inline-block h-2.5 w-2.5 rounded-sm ${colour(i).swatch}`} />
            <code>{s.name}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Intervals on a time axis, one lane per row (pauses, stale periods). */
export function Lanes({ from, to, lanes, label }: { from: string; to: string; lanes: Array<{ label: string; spans: Array<{ start: string; end: string | null; title: string; open?: boolean }> }>; label: string }) {
  const lo = Date.parse(from);
  const hi = Date.parse(to);
  const width = 640;
  const left = 110;
  const plot = width - left - 28;
  const laneH = 26;
  const x = (t: number) => left + ((Math.min(hi, Math.max(lo, t)) - lo) / Math.max(1, hi - lo)) * plot;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => lo + f * (hi - lo));
  return (
    <svg viewBox={`0 0 ${width} ${lanes.length * laneH + 26}`} className="h-auto w-full" role="img" aria-label={label}>
      <defs>
        <pattern id="open-hatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
          <rect width="6" height="6" className="fill-sky-200" />
          <line x1="0" y1="0" x2="0" y2="6" className="stroke-sky-700" strokeWidth="2" />
        </pattern>
      </defs>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={0} y2={lanes.length * laneH} className="stroke-slate-200" />
          <text x={x(t)} y={lanes.length * laneH + 16} fontSize={10} textAnchor="middle" className="fill-slate-500">
            {new Date(t).toISOString().slice(5, 10)}
          </text>
        </g>
      ))}
      {lanes.map((lane, i) => (
        <g key={lane.label}>
          <text x={left - 8} y={i * laneH + 17} fontSize={12} textAnchor="end" className="fill-slate-900">
            {lane.label}
          </text>
          <line x1={left} x2={left + plot} y1={i * laneH + 13} y2={i * laneH + 13} className="stroke-slate-100" strokeWidth={14} />
          {lane.spans.map((s, j) => {
            const x1 = x(Date.parse(s.start));
            const x2 = x(s.end ? Date.parse(s.end) : hi);
            return (
              <rect key={j} x={x1} y={i * laneH + 6} width={Math.max(2, x2 - x1)} height={14} rx={2} fill={s.open ? "url(#open-hatch)" : undefined} className={s.open ? undefined : "fill-sky-700"}>
                <title>{s.title}</title>
              </rect>
            );
          })}
        </g>
      ))}
    </svg>
  );
}
