// Every CLI command with --json prints exactly one JSON document on stdout, so
// `| jq` works; its logs go to stderr. Run as a user runs it, as a process.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, type CollectorFixture } from "../support/collector-env";

const root = path.resolve(import.meta.dirname, "../..");
const api = deploymentYaml("api", "shop/api:1.4.0", 2);

let f: CollectorFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("--json", () => {
  it("npm run -s collect -- --once --json: one JSON document on stdout, the run's logs on stderr", async () => {
    f = await createCollectorFixture({ "envs/test/api.yaml": [api] });
    await f.applyAsController([api]);
    const configFile = path.join(f.dir, "driftwatch.yaml");
    fs.writeFileSync(
      configFile,
      stringify({
        repositories: [{ name: "shop", url: f.repo.dir }],
        environments: [
          {
            name: "test",
            cluster: { kubeconfig: f.cluster.kubeconfigPath, context: "t-readonly" },
            namespaces: ["shop"],
            defaultNamespace: "shop",
            source: { repository: "shop", branch: "main", path: "envs/test" },
          },
        ],
      }),
    );
    const out = await run("npm", ["run", "-s", "collect", "--", "--once", "--json"], {
      DATABASE_URL: process.env.DATABASE_URL ?? "",
      DRIFTWATCH_CONFIG: configFile,
      DRIFTWATCH_DATA_DIR: path.join(f.dir, "cli-data"),
      DRIFTWATCH_SECRET: "test-instance-key-0123456789abcdef",
      // Every log line the run writes, so a line that went to stdout would break the parse below.
      LOG_LEVEL: "debug",
    });
    expect(out.code, out.stderr).toBe(0);
    const doc = JSON.parse(out.stdout) as Array<{ environment: string; outcome: { status: string; approvedSha: string } | null }>;
    expect(doc).toEqual([expect.objectContaining({ environment: "test", outcome: expect.objectContaining({ status: "succeeded", approvedSha: f.repo.head() }) })]);
    // The logs were written, to stderr.
    expect(out.stderr).toMatch(/"service":"driftwatch"/);
  });
});
