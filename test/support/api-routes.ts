// The route handlers on disk under app/api, with the OpenAPI path each one
// serves: app/api/environments/[env]/drift/route.ts → /api/environments/{env}/drift.
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const API_DIR = path.join(ROOT, "app", "api");
const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export interface RouteFile {
  file: string;
  /** OpenAPI style: /api/claims/{id}/transfer. */
  path: string;
  /** Lower-case HTTP methods the file exports a handler for. */
  methods: string[];
}

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return routeFiles(p);
    return /^route\.tsx?$/.test(d.name) ? [p] : [];
  });
}

export function apiRouteFiles(): RouteFile[] {
  return routeFiles(API_DIR).map((file) => {
    const segments = path.relative(path.join(ROOT, "app"), path.dirname(file)).split(path.sep);
    const openApiPath =
      "/" +
      segments
        .filter((s) => !/^\(.*\)$/.test(s))
        .map((s) => s.replace(/^\[\[?\.{3}(.+?)\]\]?$/, "{$1}").replace(/^\[(.+)\]$/, "{$1}"))
        .join("/");
    const source = fs.readFileSync(file, "utf8");
    const methods = HTTP_METHODS.filter((m) => new RegExp(`export\\s+(?:const|async\\s+function|function)\\s+${m}\\b`).test(source)).map((m) => m.toLowerCase());
    return { file, path: openApiPath, methods };
  });
}
