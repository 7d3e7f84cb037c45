// Metadata-only lists, as the collector uses them to look for tracked orphans.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "@driftwatch/kubesim";
import { createClusterClient, type ClusterClient } from "./client";
import { discover, type ApiResource } from "./discovery";
import { listPaged } from "./list";

let sim: KubeSim;
let client: ClusterClient;
let configMaps: ApiResource;

beforeAll(async () => {
  sim = await startKubeSim({ adminPort: false, controllers: false });
  client = createClusterClient({ kubeconfig: sim.kubeconfigPath });
  configMaps = (await discover(client)).lookup("v1", "ConfigMap") as ApiResource;
  await client.requestJson("POST", "/api/v1/namespaces", { body: { metadata: { name: "shop" } } });
  for (const [name, team] of [["a", "shop"], ["b", "shop"], ["c", "other"]]) {
    await client.requestJson("POST", "/api/v1/namespaces/shop/configmaps", { body: { metadata: { name, labels: { team } }, data: { SECRET_LOOKING: `value-${name}` } } });
  }
});
afterAll(async () => {
  await sim?.stop();
});

describe("listPaged", () => {
  it("metadataOnly: items carry metadata and no body, paged, with apiVersion and kind of the listed kind", async () => {
    const items: Array<Record<string, unknown>> = [];
    await listPaged(client, configMaps, { namespace: "shop", pageSize: 2, metadataOnly: true }, (page) => void items.push(...page));
    expect(items.map((i) => [i.apiVersion, i.kind, (i.metadata as { name: string }).name])).toEqual([
      ["v1", "ConfigMap", "a"],
      ["v1", "ConfigMap", "b"],
      ["v1", "ConfigMap", "c"],
    ]);
    expect(items.every((i) => i.data === undefined)).toBe(true);
    expect((items[0]?.metadata as { labels: unknown }).labels).toEqual({ team: "shop" });
  });

  it("metadataOnly with a label selector narrows on the server", async () => {
    const names: string[] = [];
    await listPaged(client, configMaps, { namespace: "shop", metadataOnly: true, labelSelector: "team=shop" }, (page) => void names.push(...page.map((i) => (i.metadata as { name: string }).name)));
    expect(names).toEqual(["a", "b"]);
  });

  it("without it, whole objects", async () => {
    const items: Array<Record<string, unknown>> = [];
    await listPaged(client, configMaps, { namespace: "shop" }, (page) => void items.push(...page));
    expect(items.map((i) => i.data)).toEqual([{ SECRET_LOOKING: "value-a" }, { SECRET_LOOKING: "value-b" }, { SECRET_LOOKING: "value-c" }]);
  });
});
