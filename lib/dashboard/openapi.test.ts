import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi";

const apiRoot = path.resolve(import.meta.dirname, "../../app/api");

function routeFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return routeFiles(p);
    return d.name === "route.ts" ? [p] : [];
  });
}

/** app/api/environments/[env]/drift/route.ts → /api/environments/{env}/drift; catch-alls become {name}. */
function openApiPath(file: string): string {
  const rel = path.relative(path.resolve(apiRoot, ".."), path.dirname(file)).split(path.sep);
  return "/" + rel.filter((s) => !/^\(.*\)$/.test(s)).map((s) => s.replace(/^\[\.{3}(.+)\]$/, "{$1}").replace(/^\[(.+)\]$/, "{$1}")).join("/");
}

function methodsOf(file: string): string[] {
  const src = fs.readFileSync(file, "utf8");
  return [...src.matchAll(/export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!.toLowerCase());
}

describe("OpenAPI document", () => {
  const doc = openApiDocument() as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

  it("is OpenAPI 3.1 and every $ref resolves", () => {
    expect(doc.openapi).toBe("3.1.0");
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(doc.components.schemas, r).toHaveProperty(r);
  });

  it("documents every route handler under app/api with each of its methods", () => {
    const files = routeFiles(apiRoot);
    expect(files.length).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const f of files) {
      const p = openApiPath(f);
      for (const m of methodsOf(f)) if (!doc.paths[p]?.[m]) missing.push(`${m.toUpperCase()} ${p}`);
    }
    expect(missing).toEqual([]);
  });
});
