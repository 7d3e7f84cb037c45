import os from "node:os";
import path from "node:path";
import fs from "node:fs";

export interface E2EServerState {
  pid: number;
  dataDir: string;
  logFile: string;
  baseURL: string;
}

export function serverStateFile(): string {
  return path.join(os.tmpdir(), `driftwatch-e2e-server-${process.env.E2E_PORT ?? 3107}.json`);
}

export function readServerState(): E2EServerState {
  return JSON.parse(fs.readFileSync(serverStateFile(), "utf8")) as E2EServerState;
}
