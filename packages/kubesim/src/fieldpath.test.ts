import { describe, expect, it } from "vitest";
import { DEPLOYMENT } from "./builtin-schemas";
import { compareObjects, FieldSet, pathString, toFieldSet } from "./fieldpath";

const dep = {
  metadata: { labels: { app: "web" } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "web", image: "nginx", ports: [{ containerPort: 80 }] }] },
    },
  },
};

describe("FieldsV1", () => {
  it("describes an applied configuration the way structured-merge-diff does", () => {
    expect(toFieldSet(dep, DEPLOYMENT).toFieldsV1()).toEqual({
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": {
            "f:containers": {
              'k:{"name":"web"}': {
                ".": {},
                "f:image": {},
                "f:name": {},
                "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } },
              },
            },
          },
        },
      },
    });
  });

  it("marks maps that an update adds with '.' and leaves existing structs unmarked", () => {
    const before = { metadata: {}, spec: { template: { metadata: {}, spec: { containers: null } }, strategy: {} } };
    const c = compareObjects(before, dep, DEPLOYMENT);
    const added = c.added.toFieldsV1() as Record<string, Record<string, unknown>>;
    expect(added["f:metadata"]).toEqual({ "f:labels": { ".": {}, "f:app": {} } });
    expect(Object.keys(added["f:spec"] ?? {})).not.toContain(".");
  });

  it("round-trips through its JSON form and orders keys like the real encoder", () => {
    const json = { ".": {}, "f:b": {}, "f:a": { ".": {}, "f:x": {} }, 'k:{"name":"z"}': {}, 'k:{"name":"a"}': {} };
    const encoded = FieldSet.fromFieldsV1({ "f:s": json }).toFieldsV1();
    expect(JSON.stringify(encoded)).toBe('{"f:s":{".":{},"f:a":{".":{},"f:x":{}},"f:b":{},"k:{\\"name\\":\\"a\\"}":{},"k:{\\"name\\":\\"z\\"}":{}}}');
  });

  it("prints paths as conflict messages do", () => {
    expect(pathString(["f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"web"}', "f:image"])).toBe('.spec.template.spec.containers[name="web"].image');
    expect(pathString(["f:metadata", "f:finalizers", 'v:"x"'])).toBe('.metadata.finalizers[="x"]');
  });
});
