// The instance key: signs nothing the browser can forge and keys the hashes
// that stand in for Secret values (so a hash cannot be looked up in a
// rainbow table). From DRIFTWATCH_SECRET, else generated once into the data
// folder with owner-only permissions.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env, dataDir } from "./index";

let cached: Buffer | undefined;

export function instanceKey(): Buffer {
  if (cached) return cached;
  const fromEnv = env().DRIFTWATCH_SECRET;
  if (fromEnv) {
    cached = Buffer.from(fromEnv, "utf8");
    return cached;
  }
  const file = path.join(dataDir(), "instance.key");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e; // another process wrote it first
    }
  }
  cached = Buffer.from(fs.readFileSync(file, "utf8").trim(), "utf8");
  return cached;
}
