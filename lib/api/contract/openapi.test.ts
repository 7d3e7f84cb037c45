// The generated document: OpenAPI 3.1, every reference resolves, and it
// documents exactly the route handlers on disk (no more, no fewer).
import { describe, expect, it } from "vitest";
import { apiRouteFiles } from "@/test/support/api-routes";
import { openApiDocument } from "./openapi";
import { operations } from "./operations";

type Doc = { openapi: string; paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; in: string; required: boolean }>; responses: Record<string, unknown> }>>; components: { schemas: Record<string, unknown> } };
const doc = openApiDocument() as Doc;

describe("the generated OpenAPI document", () => {
  it("is OpenAPI 3.1 and every $ref resolves to a component", () => {
    expect(doc.openapi).toBe("3.1.0");
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(40);
    expect(refs.filter((r) => !(r in doc.components.schemas))).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('"$id"');
  });

  it("documents every route handler under app/api, and nothing that is not one", () => {
    const onDisk = apiRouteFiles().flatMap((r) => r.methods.map((m) => `${m.toUpperCase()} ${r.path}`));
    const documented = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(onDisk.length).toBeGreaterThan(30);
    expect(documented.sort()).toEqual(onDisk.sort());
    expect(documented.length).toBe(Object.keys(operations).length);
  });

  it("says what the schemas say: a strict answer, a path parameter, a query default", () => {
    const revision = doc.components.schemas.Revision as { additionalProperties: boolean; required: string[] };
    expect(revision.additionalProperties).toBe(false);
    expect(revision.required).toContain("committedAt");
    const drift = doc.paths["/api/environments/{env}/drift"]!.get!;
    expect(drift.parameters?.find((p) => p.name === "env")).toMatchObject({ in: "path", required: true });
    // A default means a client may leave it out.
    expect(drift.parameters?.find((p) => p.name === "limit")).toMatchObject({ in: "query", required: false, schema: { type: "integer", default: 50, maximum: 500 } });
    expect(Object.keys(drift.responses).sort()).toEqual(["200", "400", "401", "404"]);
    const createPause = doc.paths["/api/pauses"]!.post!;
    expect(Object.keys(createPause.responses)).toEqual(expect.arrayContaining(["201", "400", "401", "403", "404", "409", "415"]));
  });

  it("says what an application's source follows, with the kinds the collector resolves", () => {
    const follows = doc.components.schemas.Follows as { required: string[]; properties: { kind: { enum: string[] } } };
    expect(follows.required.sort()).toEqual(["kind", "ref", "resolved", "text"]);
    expect(follows.properties.kind.enum).toEqual(["branch", "tag", "semver", "commit", "ref", "default-branch", "digest"]);
    expect(JSON.stringify(doc.components.schemas.ApplicationSummary)).toContain('"#/components/schemas/Follows"');
  });
});
