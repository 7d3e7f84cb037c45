import fs from "node:fs";
import { stopDemoServer } from "../../test/support/demo-server";
import { readServerState, serverStateFile } from "./server-state";

export default async function globalTeardown(): Promise<void> {
  if (!fs.existsSync(serverStateFile())) return;
  await stopDemoServer(readServerState(), { keepData: process.env.E2E_KEEP_DATA === "1" });
  fs.rmSync(serverStateFile(), { force: true });
}
