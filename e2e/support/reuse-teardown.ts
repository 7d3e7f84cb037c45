// Global teardown of e2e/reuse.config.ts: forgets the demo it borrowed and leaves it running.
import fs from "node:fs";
import { serverStateFile } from "./server-state";

export default async function reuseTeardown(): Promise<void> {
  fs.rmSync(serverStateFile(), { force: true });
}
