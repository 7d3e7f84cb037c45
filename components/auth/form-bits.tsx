"use client";
// Small shared form pieces: labelled fields, the expiry picker, an error line,
// the submit and cancel buttons.
import type { ReactNode } from "react";
import { parseDuration } from "@/lib/config/duration";

export const inputClass = "mt-1 block w-full rounded border border-slate-300 px-2 py-1 text-sm focus:border-slate-500";
export const buttonClass = "rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 disabled:cursor-not-allowed disabled:opacity-50";
export const secondaryButtonClass = "rounded border border-slate-300 bg-white px-3 py-1.5 text-sm text-slate-800 hover:bg-slate-50 disabled:opacity-50";

export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <label className="block text-sm text-slate-800">
      <span className="font-medium">{label}</span>
      {children}
      {hint && <span className="mt-1 block text-xs text-slate-500">{hint}</span>}
    </label>
  );
}

/** A form's submit button (its label says what happens, and "…ing" while it runs) and Cancel. */
export function FormButtons({ submit, disabled, onCancel }: { submit: ReactNode; disabled: boolean; onCancel: () => void }) {
  return (
    <div className="flex gap-2">
      <button type="submit" className={buttonClass} disabled={disabled}>
        {submit}
      </button>
      <button type="button" className={secondaryButtonClass} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p role="alert" className="rounded border border-red-200 bg-red-50 px-2 py-1 text-sm text-red-900">
      {message}
    </p>
  );
}

const DURATIONS = [
  { value: "30m", label: "30 minutes" },
  { value: "1h", label: "1 hour" },
  { value: "4h", label: "4 hours" },
  { value: "1d", label: "1 day" },
  { value: "3d", label: "3 days" },
  { value: "7d", label: "7 days" },
];

/** Preset durations up to `maxMs`; the server checks the limit again. */
export function DurationSelect({ value, onChange, maxMs, id }: { value: string; onChange: (v: string) => void; maxMs?: number; id?: string }) {
  const options = DURATIONS.filter((d) => maxMs === undefined || (parseDuration(d.value) ?? Infinity) <= maxMs);
  return (
    <select id={id} className={inputClass} value={value} onChange={(e) => onChange(e.target.value)}>
      {options.map((d) => (
        <option key={d.value} value={d.value}>
          {d.label}
        </option>
      ))}
    </select>
  );
}
