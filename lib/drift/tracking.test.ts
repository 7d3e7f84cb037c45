import { describe, expect, it } from "vitest";
import { compileTracking, fluxInventoryId, isTrackedByEnvironment, parseArgoTrackingId } from "./tracking";
import type { KubeObject } from "./types";

const ns: KubeObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } };
const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app-config", namespace: "shop" } };

describe("environment tracking", () => {
  it("builds Flux inventory ids for core, grouped and cluster-scoped objects", () => {
    expect(fluxInventoryId(cm)).toBe("shop_app-config__ConfigMap");
    expect(fluxInventoryId(ns)).toBe("_shop__Namespace");
    expect(fluxInventoryId({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "api", namespace: "shop" } })).toBe("shop_api_apps_Deployment");
  });

  it.each([
    ["shop:/ConfigMap:shop/app-config", { app: "shop", group: "", kind: "ConfigMap", namespace: "shop", name: "app-config" }],
    ["shop:/Namespace:/shop", { app: "shop", group: "", kind: "Namespace", namespace: "", name: "shop" }],
    ["argocd_shop:apps/Deployment:shop/api", { app: "argocd_shop", group: "apps", kind: "Deployment", namespace: "shop", name: "api" }],
    ["garbage", null],
    ["a:b:c", null],
  ])("parses the Argo CD tracking id %s", (id, parsed) => expect(parseArgoTrackingId(id)).toEqual(parsed));

  it("a cluster-scoped object tracked by an Argo CD id", () => {
    const tracked = { ...ns, metadata: { ...ns.metadata, annotations: { "argocd.argoproj.io/tracking-id": "shop:/Namespace:/shop" } } };
    expect(isTrackedByEnvironment(tracked, compileTracking({ argoApp: "shop" }))).toBe(true);
    expect(isTrackedByEnvironment(tracked, compileTracking({ argoApp: "shop", argoTrackingId: false }))).toBe(false);
  });

  it.each([
    ["shop:apps/Deployment:shop/api", true],
    ["team-a_shop:apps/Deployment:shop/api", true],
    ["team-b_shop:apps/Deployment:shop/api", false],
    ["other:apps/Deployment:shop/api", false],
  ])("an Application in its own namespace (team-a) tracks %s: %s", (id, tracked) => {
    const api: KubeObject = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "api", namespace: "shop", annotations: { "argocd.argoproj.io/tracking-id": id } } };
    expect(isTrackedByEnvironment(api, compileTracking({ argoApp: "shop", argoAppNamespace: "team-a" }))).toBe(tracked);
  });

  it("an object another object made (controller ownerReference) is not tracked by the label it inherited", () => {
    const labelled = { ...cm, metadata: { ...cm.metadata, labels: { team: "shop" } } };
    const owned = {
      ...labelled,
      metadata: { ...labelled.metadata, ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", uid: "u-1", controller: true }] },
    };
    const byLabel = compileTracking({ label: "team=shop" });
    expect(isTrackedByEnvironment(labelled, byLabel)).toBe(true);
    expect(isTrackedByEnvironment(owned, byLabel)).toBe(false);
    // A non-controller reference (garbage-collection only) does not make it someone else's creation.
    const referenced = { ...labelled, metadata: { ...labelled.metadata, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "u-2" }] } };
    expect(isTrackedByEnvironment(referenced, byLabel)).toBe(true);
  });

  // As the endpoints controller writes them for a Service labelled app.kubernetes.io/instance=guestbook (Argo CD label tracking).
  it.each([
    ["the endpoints controller's Endpoints (labels copied, no owner)", "v1", "Endpoints", { "endpoints.kubernetes.io/managed-by": "endpoint-controller" }, false],
    ["an EndpointSlice made by the slice or mirroring controller", "discovery.k8s.io/v1", "EndpointSlice", { "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io" }, false],
    ["an Endpoints someone left behind by hand (no managed-by label)", "v1", "Endpoints", {}, true],
    ["an Endpoints claiming another manager", "v1", "Endpoints", { "endpoints.kubernetes.io/managed-by": "someone" }, true],
  ])("label tracking: %s → tracked %s", (_, apiVersion, kind, extra, tracked) => {
    const obj: KubeObject = { apiVersion, kind, metadata: { name: "guestbook-ui", namespace: "guestbook", labels: { "app.kubernetes.io/instance": "guestbook", ...extra } } };
    expect(isTrackedByEnvironment(obj, compileTracking({ label: "app.kubernetes.io/instance=guestbook" }))).toBe(tracked);
  });

  it("rejects a malformed tracking label", () => {
    expect(() => compileTracking({ label: "no-equals" })).toThrow(/key=value/);
  });
});
