// Every request body is read through lib/api/body.ts: no route or library
// module reads one any other way (req.text(), req.json(), req.formData(),
// req.arrayBuffer(), req.blob(), req.body), since only the helper stops at a
// limit. A new route that reads its body by hand fails here.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const HELPER = path.join("lib", "api", "body.ts");
const UNBOUNDED = /\b(?:req|request)\s*\.\s*(?:text|json|formData|arrayBuffer|blob)\s*\(|\.body\s*\.\s*getReader\s*\(/;
/** The stream itself handed on, in a module that handles Next.js requests (lib/webhooks gets a Buffer already read). */
const STREAM_HANDED_ON = /\b(?:req|request)\s*\.\s*body\b/;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "generated" && !entry.name.startsWith(".")) out.push(...sourceFiles(rel));
    } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
      out.push(rel);
    }
  }
  return out;
}

describe("request bodies", () => {
  it("are read only through the bounded helper", () => {
    const files = [...sourceFiles("app"), ...sourceFiles("lib"), "proxy.ts"];
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .filter((f) => f !== HELPER)
      .flatMap((f) => {
        const text = fs.readFileSync(path.join(ROOT, f), "utf8");
        const handlesRequests = text.includes('"next/server"');
        return text
          .split("\n")
          .map((line, i) => ({ where: `${f}:${i + 1}`, line }))
          .filter(({ line }) => !line.trim().startsWith("//") && (UNBOUNDED.test(line) || (handlesRequests && STREAM_HANDED_ON.test(line))));
      })
      .map(({ where, line }) => `${where}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });

  it("the check would see a hand-read body", () => {
    for (const line of ["const raw = JSON.parse(await req.text());", "await request.json()", "const reader = req.body.getReader();", "await req.formData()"]) {
      expect(UNBOUNDED.test(line), line).toBe(true);
    }
    expect(STREAM_HANDED_ON.test("const r = new Response(req.body);")).toBe(true);
    expect(UNBOUNDED.test("const body = await readJsonBounded(req, limit);")).toBe(false);
  });
});
