// Writing live values back into a Git YAML document, for claims whose return
// path is "adopt". Pure: text and drift changes in, new text out. The yaml
// Document API keeps comments and the untouched parts of the document.
import YAML from "yaml";
import { formatPatch, structuredPatch } from "diff";
import type { Change } from "@/lib/drift/types";
import { NOISY_ANNOTATIONS, SERVER_METADATA_FIELDS } from "@/lib/drift/metadata-noise";
import { parsePathPattern, type PatternSegment } from "@/lib/drift/path";

type Path = (string | number)[];

function scalarText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * Turns a display path (`spec.template.spec.containers[name=api].image`) into
 * indices in the Git document, so a list item is found by its merge key even
 * when Git and live order it differently. Null when the path cannot be
 * followed in Git (then the change's own index path is used).
 */
export function resolveInDocument(root: unknown, display: string, forAdd: boolean): Path | null {
  let segs: PatternSegment[];
  try {
    segs = parsePathPattern(display);
  } catch {
    return null;
  }
  const out: Path = [];
  let node: unknown = root;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    if (seg.t === "field") {
      out.push(seg.name);
      node = node && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>)[seg.name] : undefined;
      if (node === undefined && !last) {
        // The rest of the path is new in Git: only plain fields can be created from here.
        if (segs.slice(i + 1).every((s) => s.t === "field")) {
          for (const s of segs.slice(i + 1)) out.push((s as { name: string }).name);
          return out;
        }
        return null;
      }
      continue;
    }
    if (!Array.isArray(node)) return null;
    let index = -1;
    if (seg.t === "index") index = seg.index;
    else if (seg.t === "select") index = node.findIndex((item) => item && typeof item === "object" && seg.pairs.every(([k, v]) => scalarText((item as Record<string, unknown>)[k]) === v));
    else if (seg.t === "value") index = node.findIndex((item) => scalarText(item) === seg.value);
    else return null;
    if (index < 0 || index >= node.length) {
      // A list item Git does not have yet: append it, when it is the last step.
      if (last && forAdd) {
        out.push(node.length);
        return out;
      }
      return null;
    }
    out.push(index);
    node = node[index];
  }
  return out;
}

export interface AdoptResult {
  text: string;
  applied: number;
  notes: string[];
}

/** Applies the live side of each change to one YAML document's text. */
export function adoptChanges(docText: string, changes: Change[]): AdoptResult {
  const doc = YAML.parseDocument(docText, { keepSourceTokens: false });
  if (doc.errors.length) return { text: docText, applied: 0, notes: [`the Git document does not parse: ${doc.errors[0]?.message ?? "?"}`] };
  const notes: string[] = [];
  let applied = 0;
  for (const change of changes) {
    if (change.masked) {
      notes.push(`${change.display}: a Secret value; Driftwatch never stores it, so set it in Git yourself`);
      continue;
    }
    const removing = change.kind === "removed";
    const path = resolveInDocument(doc.toJS(), change.display, !removing) ?? change.path;
    if (path.length === 0) continue;
    if (removing) {
      if (doc.hasIn(path)) {
        doc.deleteIn(path);
        applied++;
      }
    } else {
      const existing = doc.getIn(path, true);
      const live = change.live;
      if (YAML.isScalar(existing) && (live === null || typeof live !== "object")) {
        existing.value = live; // keeps the scalar's comment and position
      } else {
        doc.setIn(path, doc.createNode(live));
      }
      applied++;
    }
  }
  const text = applied > 0 ? doc.toString({ lineWidth: 0 }) : docText;
  return { text, applied, notes };
}

/** `replacement` ending the way the segment it replaces ended (with or without a newline). */
function endingLike(original: string, replacement: string): string {
  let next = replacement;
  if (!original.endsWith("\n") && next.endsWith("\n")) next = next.replace(/\n+$/, "");
  if (original.endsWith("\n") && !next.endsWith("\n")) next += "\n";
  return next;
}

/** Replaces the characters `range` of `file` with `replacement`, keeping how the original segment ended. */
export function spliceDocument(file: string, range: [number, number], replacement: string): string {
  return file.slice(0, range[0]) + endingLike(file.slice(range[0], range[1]), replacement) + file.slice(range[1]);
}

// A `kind: Secret` line in any YAML or JSON spelling, at any indentation (a
// List's items too). Deliberately loose: a false alarm only costs context lines.
const SECRET_KIND = /(^|[\s{,])["']?kind["']?\s*:\s*["']?Secret["']?\s*($|[,}#])/m;

/** Whether YAML text holds (or might hold) a Secret document. */
export function mayHoldSecret(text: string): boolean {
  return SECRET_KIND.test(text);
}

export interface DocumentEdit {
  /** The document's characters in the original file (from its own `---`). */
  range: [number, number];
  /** Its new text; "" removes the document. */
  after: string;
}

const lineCount = (text: string): number => (text.match(/\n/g) ?? []).length;

/**
 * A unified diff of `file` that shows only the edited documents: each hunk's
 * context stops at its document's edges, plus the next document's `---` line
 * (so a hunk at a document's end still has trailing context and `git apply`
 * does not take it for the end of the file). Used where a file also holds a
 * Secret, so that none of the Secret's text lands in the patch as context.
 */
export function documentPatch(filePath: string, file: string, edits: DocumentEdit[]): string {
  const hunks: ReturnType<typeof structuredPatch>["hunks"] = [];
  let shift = 0; // lines the edits before this one added (or removed)
  for (const edit of [...edits].sort((a, b) => a.range[0] - b.range[0])) {
    const [start, end] = edit.range;
    const separator = /^---[ \t]*(#[^\n]*)?(\n|$)/.exec(file.slice(end))?.[0] ?? "";
    const before = file.slice(start, end) + separator;
    const after = (edit.after === "" ? "" : endingLike(file.slice(start, end), edit.after)) + separator;
    const offset = lineCount(file.slice(0, start));
    for (const h of structuredPatch("a", "b", before, after, undefined, undefined, { context: 3 }).hunks) {
      hunks.push({ ...h, oldStart: h.oldStart + offset, newStart: h.newStart + offset + shift });
    }
    shift += lineCount(after) - lineCount(before);
  }
  if (hunks.length === 0) return "";
  return formatPatch({ oldFileName: `a/${filePath}`, newFileName: `b/${filePath}`, oldHeader: undefined, newHeader: undefined, hunks }).replace(/^=+\n/, "");
}

/** Removes one document from a multi-document file (adopting a deletion). A document's range starts at its own `---`, so the rest stays well-formed. */
export function removeDocument(file: string, range: [number, number]): string {
  return file.slice(0, range[0]) + file.slice(range[1]);
}

// ownerReferences name uids of this cluster: meaningless in Git.
const NOISE_METADATA = [...SERVER_METADATA_FIELDS, "ownerReferences"];

/** A live object as a manifest worth committing: no status, no server bookkeeping. */
export function manifestFromLive(body: Record<string, unknown>): string {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  delete copy.status;
  const meta = copy.metadata && typeof copy.metadata === "object" ? (copy.metadata as Record<string, unknown>) : null;
  if (meta) {
    for (const f of NOISE_METADATA) delete meta[f];
    const ann = meta.annotations && typeof meta.annotations === "object" ? (meta.annotations as Record<string, unknown>) : null;
    if (ann) {
      for (const k of NOISY_ANNOTATIONS) delete ann[k];
      if (Object.keys(ann).length === 0) delete meta.annotations;
    }
  }
  return YAML.stringify(copy, { lineWidth: 0 });
}
