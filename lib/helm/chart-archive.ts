// Unpacking a verified chart archive where kustomize's Helm inflator looks
// for it (chartHome/<name>), so neither kustomize nor helm pulls anything.
// Only plain files and folders under the chart's own top folder are
// written: an archive entry that is a link, a device, an absolute path or
// climbs out with `..` refuses the whole archive.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { GitError } from "@/lib/git/errors";

const BLOCK = 512;
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? raw.length : end).toString("utf8");
}

function octal(header: Buffer, start: number, length: number): number {
  const text = field(header, start, length).trim();
  return text ? parseInt(text, 8) : 0;
}

/** `path=…` of a PAX extended header (Go's archive/tar writes one for long names). */
function paxPath(body: Buffer): string | undefined {
  let rest = body.toString("utf8");
  while (rest.length > 0) {
    const space = rest.indexOf(" ");
    const size = Number(rest.slice(0, space));
    if (!Number.isFinite(size) || size <= 0) return undefined;
    const record = rest.slice(space + 1, size - 1);
    if (record.startsWith("path=")) return record.slice(5);
    rest = rest.slice(size);
  }
  return undefined;
}

export interface ArchiveEntry {
  /** Path inside the archive, `/`-separated, never absolute or climbing. */
  path: string;
  /** null for a folder. */
  content: Buffer | null;
}

/** The entries of a gzipped tar, or a GitError naming the first entry that is not a plain file or folder. */
export function readChartArchive(gzipped: Buffer, what: string): ArchiveEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gzipped, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch (e) {
    throw new GitError("render", `${what} is not a gzipped chart archive: ${(e as Error).message}`);
  }
  const entries: ArchiveEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 48);
    const body = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      longName = paxPath(body);
      continue;
    }
    if (type === "L") {
      longName = field(body, 0, body.length);
      continue;
    }
    if (type === "g") continue;
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    const clean = path.posix.normalize(name).replace(/\/+$/, "");
    if (name.startsWith("/") || clean === ".." || clean.startsWith("../")) throw new GitError("render", `${what}: the entry "${name}" leaves the chart folder; the archive is refused`);
    if (type === "0" || type === "\0" || type === "7") entries.push({ path: clean, content: Buffer.from(body) });
    else if (type === "5") entries.push({ path: clean, content: null });
    else throw new GitError("render", `${what}: the entry "${name}" is not a plain file or folder (tar type ${JSON.stringify(type)}); the archive is refused`);
  }
  return entries;
}

/**
 * Writes the chart `name` of the verified archive `file` as `<into>/<name>/…`.
 * A chart archive holds one top folder named after the chart; anything else
 * is refused (kustomize would not find it, and it is not what was verified).
 */
export async function unpackChart(file: string, name: string, into: string): Promise<string[]> {
  const what = `the chart archive of ${name}`;
  const entries = readChartArchive(await readFile(file), what);
  const stray = entries.find((e) => e.path !== name && !e.path.startsWith(`${name}/`));
  if (stray) throw new GitError("render", `${what}: "${stray.path}" is outside the chart's folder ${name}/; the archive is refused`);
  const written: string[] = [];
  for (const e of entries) {
    const target = path.join(into, e.path);
    if (e.content === null) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, e.content, { flag: "wx" }).catch((err: NodeJS.ErrnoException) => {
      // "wx": a file named twice, or one that already exists in the checkout, is not overwritten.
      throw new GitError("render", `${what}: "${e.path}" ${err.code === "EEXIST" ? "would overwrite a file already there" : `could not be written (${err.message})`}`);
    });
    written.push(e.path);
  }
  return written;
}
