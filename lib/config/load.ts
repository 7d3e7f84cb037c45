import fs from "node:fs";
import path from "node:path";
import { parseDocument, LineCounter } from "yaml";
import { configSchema, type DriftwatchConfig } from "./schema";

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file} is not valid:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

function formatPath(p: ReadonlyArray<PropertyKey>): string {
  return p.reduce<string>((acc, part) => {
    if (typeof part === "number") return `${acc}[${part}]`;
    return acc ? `${acc}.${String(part)}` : String(part);
  }, "");
}

/** Parses and validates config text; every problem is reported as `path.to.key: message` (line N). */
export function parseConfig(text: string, file = "driftwatch.yaml"): DriftwatchConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => {
        const pos = e.pos?.[0] !== undefined ? lineCounter.linePos(e.pos[0]) : undefined;
        return `${pos ? `line ${pos.line}: ` : ""}${e.message.split("\n")[0]}`;
      }),
    );
  }
  const raw: unknown = doc.toJS() ?? {};
  const result = configSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const where = formatPath(issue.path) || "(root)";
    const node = doc.getIn(issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)), true);
    const range = node && typeof node === "object" && "range" in node ? (node.range as [number, number, number] | undefined) : undefined;
    const line = range ? ` (line ${lineCounter.linePos(range[0]).line})` : "";
    return `${where}: ${issue.message}${line}`;
  });
  throw new ConfigError(file, problems);
}

/** Reads the config file; a missing file is an empty configuration (the dashboard then explains how to add one). */
export function loadConfig(file: string): { config: DriftwatchConfig; path: string; exists: boolean } {
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) {
    return { config: configSchema.parse({}), path: resolved, exists: false };
  }
  return { config: parseConfig(fs.readFileSync(resolved, "utf8"), resolved), path: resolved, exists: true };
}
