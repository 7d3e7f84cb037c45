// Starts the production server once for the whole e2e run, in its own data
// folder and port, and waits until it is healthy. The teardown stops it with
// SIGTERM so the embedded Postgres shuts down cleanly.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { serverStateFile, type E2EServerState } from "./server-state";

export default async function globalSetup(): Promise<void> {
  const port = Number(process.env.E2E_PORT ?? 3107);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-e2e-"));
  fs.chmodSync(dataDir, 0o755);
  const logFile = path.join(dataDir, "server.log");
  const out = fs.openSync(logFile, "a");
  const script = process.env.E2E_SERVER === "start" ? "scripts/start.ts" : "scripts/demo.ts";
  // DATABASE_URL must be absent, not empty: the env schema rejects "" as an invalid URL.
  const { DATABASE_URL: _unused, ...inherited } = process.env;
  const child = spawn("npx", ["tsx", script, ...(script.endsWith("demo.ts") ? ["--e2e"] : [])], {
    cwd: process.cwd(),
    detached: true,
    stdio: ["ignore", out, out],
    env: {
      ...inherited,
      PORT: String(port),
      HOST: "127.0.0.1",
      DRIFTWATCH_DATA_DIR: dataDir,
      DRIFTWATCH_CONFIG: path.join(dataDir, "driftwatch.yaml"),
      NODE_ENV: "production",
    },
  });
  const state: E2EServerState = { pid: child.pid ?? 0, dataDir, logFile, baseURL: `http://127.0.0.1:${port}` };
  fs.writeFileSync(serverStateFile(), JSON.stringify(state));

  const deadline = Date.now() + 240_000;
  let lastError = "";
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${state.baseURL}/api/health`);
      if (res.ok) {
        const body = (await res.json()) as { ready?: boolean };
        if (body.ready !== false) return;
        lastError = JSON.stringify(body);
      } else lastError = `HTTP ${res.status}`;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-4000) : "";
  throw new Error(`e2e server did not become healthy (${lastError}). Server log tail:\n${log}`);
}
