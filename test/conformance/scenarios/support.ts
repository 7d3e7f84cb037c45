import fs from "node:fs";
import path from "node:path";
import type { Target } from "../target";

export async function createNamespace(t: Target, name: string): Promise<void> {
  const r = await t.http("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } });
  if (r.status !== 201) throw new Error(`creating namespace ${name}: ${r.status} ${r.text}`);
}

export function writeFile(t: Target, name: string, content: string): string {
  const file = path.join(t.dir, name);
  fs.writeFileSync(file, content, { mode: 0o755 });
  return file;
}

/** Polls until fn returns something other than undefined/false (or the deadline passes, returning undefined). */
export async function poll<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function deploymentYaml(ns: string, name: string, replicas: number, image = "nginx:1.25"): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: ${name}
        image: ${image}
        ports: [{containerPort: 80}]
`;
}
