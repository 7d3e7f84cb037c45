// Global setup of e2e/reuse.config.ts: records an already running demo as the
// server under test (pid 0, so nothing ever stops it) after checking it is healthy.
import fs from "node:fs";
import path from "node:path";
import { serverStateFile, type E2EServerState } from "./server-state";

export default async function reuseSetup(): Promise<void> {
  const port = Number(process.env.E2E_PORT ?? 3107);
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir || !fs.existsSync(path.join(dataDir, "kube"))) {
    throw new Error("E2E_DATA_DIR must name the running demo's DRIFTWATCH_DATA_DIR (it holds kube/<env>.kubeconfig).");
  }
  const state: E2EServerState = { pid: 0, dataDir, logFile: path.join(dataDir, "server.log"), baseURL: `http://127.0.0.1:${port}` };
  const res = await fetch(`${state.baseURL}/api/health`).catch((e: unknown) => {
    throw new Error(`no demo answers at ${state.baseURL}: ${e instanceof Error ? e.message : String(e)}`);
  });
  if (!res.ok) throw new Error(`${state.baseURL}/api/health answered ${res.status}`);
  fs.writeFileSync(serverStateFile(), JSON.stringify(state));
}
