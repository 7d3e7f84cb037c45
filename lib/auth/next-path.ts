// Where the browser may be sent after signing in: a path on this site, never
// anywhere else (no open redirect). Browsers are generous readers of a
// Location: they drop TAB, LF and CR anywhere in it, treat `\` as `/`, and
// some routers decode %2F before resolving. So the check is strict rather
// than clever: printable ASCII only, one leading slash, no backslash, and the
// no control character or backslash
// after percent-decoding either; what survives must still resolve to our
// own origin.

const MAX_NEXT_LENGTH = 2000;
/** Printable ASCII without space: anything else (controls, DEL, spaces, non-ASCII) is refused, never cleaned. */
const PRINTABLE = /^[\x21-\x7e]*$/;
const PROBE_ORIGIN = "http://driftwatch.invalid";

/** C0 controls and DEL: what browsers strip or choke on inside a URL. */
function hasControl(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function looksLocal(path: string): boolean {
  return !hasControl(path) && path.startsWith("/") && !path.startsWith("//") && !path.includes("\\");
}

/** The path itself and every percent-decoded form of it (up to three layers); null when a layer does not decode. */
function decodedForms(path: string): string[] | null {
  const forms = [path];
  let current = path;
  for (let i = 0; i < 3 && current.includes("%"); i++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      return null;
    }
    forms.push(current);
  }
  return forms;
}

/** Only same-site paths survive as a post-sign-in destination; anything doubtful becomes "/". */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || next.length > MAX_NEXT_LENGTH || !PRINTABLE.test(next)) return "/";
  const forms = decodedForms(next);
  if (!forms || !forms.every(looksLocal)) return "/";
  let resolved: URL;
  try {
    resolved = new URL(next, PROBE_ORIGIN);
  } catch {
    return "/";
  }
  if (resolved.origin !== PROBE_ORIGIN) return "/";
  // Going back to sign-in (a loop) or to a JSON route is never what the user wanted.
  if (resolved.pathname === "/signin" || resolved.pathname.startsWith("/signin/") || resolved.pathname.startsWith("/api/")) return "/";
  return next;
}
