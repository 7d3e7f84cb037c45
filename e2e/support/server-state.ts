import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import type { DemoServer } from "../../test/support/demo-server";

export type E2EServerState = DemoServer;

export function serverStateFile(): string {
  return path.join(os.tmpdir(), `driftwatch-e2e-server-${process.env.E2E_PORT ?? 3107}.json`);
}

export function readServerState(): E2EServerState {
  return JSON.parse(fs.readFileSync(serverStateFile(), "utf8")) as E2EServerState;
}
