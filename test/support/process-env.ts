// Settings a test file gives the product through the environment (a config
// file, secrets its config names), with the parsed caches reset so they take
// effect, and a restore that puts the previous values back.
import { resetConfigCache } from "@/lib/config";
import { resetEnvCache } from "@/lib/env";

export function setProcessEnv(values: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  resetEnvCache();
  resetConfigCache();
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvCache();
    resetConfigCache();
  };
}
