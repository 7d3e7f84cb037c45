import { describe, expect, it } from "vitest";
import { objectKey, parseObjectKey, type KubeObject } from "./types";

describe("object keys", () => {
  it.each([
    [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app-config", namespace: "default" } }, "/ConfigMap/default/app-config"],
    [{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "api", namespace: "shop" } }, "apps/Deployment/shop/api"],
    [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, "/Namespace//shop"],
    [{ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "view" } }, "rbac.authorization.k8s.io/ClusterRole//view"],
  ] as [KubeObject, string][])("%j → %s and back", (obj, key) => {
    expect(objectKey(obj)).toBe(key);
    const p = parseObjectKey(key);
    expect(p).toEqual({ group: key.split("/")[0], kind: obj.kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name });
  });

  it.each(["", "a/b/c", "apps/Deployment/shop/", "apps//shop/api", "a/b/c/d/e"])("rejects %j", (bad) => {
    expect(() => parseObjectKey(bad)).toThrow(/not an object key/);
  });
});
