// Times on the report are UTC, written out: a printed page cannot follow the
// reader's time zone, and every reader of one copy must read the same time.
export function utcText(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

export function Utc({ iso }: { iso: string | null }) {
  if (!iso) return <span>—</span>;
  return <time dateTime={iso}>{utcText(iso)}</time>;
}
