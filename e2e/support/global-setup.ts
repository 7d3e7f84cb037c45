// Starts the production server once for the whole e2e run, in its own data
// folder and port, and waits until it is healthy; the teardown stops it.
import fs from "node:fs";
import { startDemoServer } from "../../test/support/demo-server";
import { serverStateFile, type E2EServerState } from "./server-state";

export default async function globalSetup(): Promise<void> {
  const port = Number(process.env.E2E_PORT ?? 3107);
  const script = process.env.E2E_SERVER === "start" ? "scripts/start.ts" : "scripts/demo.ts";
  const state: E2EServerState = await startDemoServer({ port, script });
  fs.writeFileSync(serverStateFile(), JSON.stringify(state));
}
