// The kubeconfig a started kubesim writes: one cluster, an admin and a
// read-only user with bearer tokens, a context for each.
import fs from "node:fs/promises";
import path from "node:path";
import YAML from "yaml";
import type { Tokens } from "./persistence";

export async function writeKubeconfig(file: string, clusterName: string, url: string, caPem: string, tokens: Tokens): Promise<void> {
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster: { server: url, "certificate-authority-data": Buffer.from(caPem).toString("base64") } }],
    users: [
      { name: `${clusterName}-admin`, user: { token: tokens.admin } },
      { name: `${clusterName}-readonly`, user: { token: tokens.readonly } },
    ],
    contexts: [
      { name: clusterName, context: { cluster: clusterName, user: `${clusterName}-admin`, namespace: "default" } },
      { name: `${clusterName}-readonly`, context: { cluster: clusterName, user: `${clusterName}-readonly`, namespace: "default" } },
    ],
    "current-context": clusterName,
    preferences: {},
  };
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, YAML.stringify(kubeconfig), { mode: 0o600 });
}
