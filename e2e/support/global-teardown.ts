import fs from "node:fs";
import { readServerState, serverStateFile } from "./server-state";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function globalTeardown(): Promise<void> {
  if (!fs.existsSync(serverStateFile())) return;
  const state = readServerState();
  if (state.pid > 0 && alive(state.pid)) {
    try {
      process.kill(-state.pid, "SIGTERM");
    } catch {
      process.kill(state.pid, "SIGTERM");
    }
    const deadline = Date.now() + 20_000;
    while (alive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (alive(state.pid)) process.kill(-state.pid, "SIGKILL");
  }
  if (process.env.E2E_KEEP_DATA !== "1") {
    // The demo's children (Postgres, the API imitations) may still flush files for a moment after the
    // process group leader is gone: retry, and never fail a green run over a temporary folder.
    try {
      fs.rmSync(state.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 300 });
    } catch (e) {
      console.warn(`could not remove ${state.dataDir}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  fs.rmSync(serverStateFile(), { force: true });
}
