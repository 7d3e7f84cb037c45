// A real demo (`scripts/demo.ts`: production build, embedded Postgres, the
// Kubernetes API imitations, the scripted history) in its own temporary data
// folder and port, for suites that test the product from the outside: the e2e
// suite and the API contract fuzzing. Stopped with SIGTERM so the embedded
// Postgres shuts down cleanly.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface DemoServer {
  /** 0 for a demo someone else started (never stopped by us). */
  pid: number;
  dataDir: string;
  logFile: string;
  baseURL: string;
}

export async function startDemoServer(opts: { port: number; script?: "scripts/demo.ts" | "scripts/start.ts"; timeoutMs?: number }): Promise<DemoServer> {
  const script = opts.script ?? "scripts/demo.ts";
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-e2e-"));
  fs.chmodSync(dataDir, 0o755);
  const logFile = path.join(dataDir, "server.log");
  const out = fs.openSync(logFile, "a");
  // DATABASE_URL must be absent, not empty: the env schema rejects "" as an invalid URL.
  const { DATABASE_URL: _unused, ...inherited } = process.env;
  const child = spawn("npx", ["tsx", script, ...(script.endsWith("demo.ts") ? ["--e2e"] : [])], {
    cwd: process.cwd(),
    detached: true,
    stdio: ["ignore", out, out],
    env: {
      ...inherited,
      PORT: String(opts.port),
      HOST: "127.0.0.1",
      DRIFTWATCH_DATA_DIR: dataDir,
      DRIFTWATCH_CONFIG: path.join(dataDir, "driftwatch.yaml"),
      NODE_ENV: "production",
    },
  });
  const server: DemoServer = { pid: child.pid ?? 0, dataDir, logFile, baseURL: `http://127.0.0.1:${opts.port}` };

  const deadline = Date.now() + (opts.timeoutMs ?? 240_000);
  let lastError = "";
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${server.baseURL}/api/health`);
      if (res.ok) {
        const body = (await res.json()) as { ready?: boolean };
        if (body.ready !== false) return server;
        lastError = JSON.stringify(body);
      } else lastError = `HTTP ${res.status}`;
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").slice(-4000) : "";
  await stopDemoServer(server, { keepData: true });
  throw new Error(`demo server did not become healthy (${lastError}). Server log tail (${logFile}):\n${log}`);
}

/** Whether any process of the demo's group (the demo, Postgres, the API imitations) still runs. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function stopDemoServer(server: DemoServer, opts: { keepData?: boolean } = {}): Promise<void> {
  if (server.pid > 0 && groupAlive(server.pid)) {
    process.kill(-server.pid, "SIGTERM");
    // The whole group, not only its leader: the API imitations save their state as they stop.
    const deadline = Date.now() + 20_000;
    while (groupAlive(server.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (groupAlive(server.pid)) {
      try {
        process.kill(-server.pid, "SIGKILL");
      } catch {
        // gone between the check and the signal
      }
    }
  }
  if (server.pid > 0 && !opts.keepData) {
    // Retry, and never fail a green run over a temporary folder.
    try {
      fs.rmSync(server.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
    } catch (e) {
      console.warn(`could not remove ${server.dataDir}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
