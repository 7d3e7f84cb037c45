// Each layer of the render sandbox on its own: kustomize is run directly on
// hostile trees, without the reference check in front of it, to prove the
// environment and the network namespace hold by themselves.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runKustomize } from "./kustomize";
import { requiredKustomize } from "@/test/support/required-tools";
import { networkIsolation, renderEnv } from "./sandbox";
import { tempDir } from "./test-support/repo-fixture";

const bin = requiredKustomize();
const isolation = networkIsolation();
if (isolation.prefix.length === 0) console.log(`network namespace test skipped: ${isolation.reason}`);

describe("renderEnv", () => {
  it("inherits nothing but PATH, and points git at no configuration and no transport", () => {
    process.env.DW_SANDBOX_CANARY = "token-value";
    try {
      const env = renderEnv("/tmp/empty-home");
      expect(env).toMatchObject({ HOME: "/tmp/empty-home", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_ALLOW_PROTOCOL: "none" });
      expect(JSON.stringify(env)).not.toContain("token-value");
      expect(Object.keys(env).filter((k) => !/^(NODE_ENV|PATH|HOME|XDG_.*|KUBECONFIG|LC_ALL|GIT_.*)$/.test(k))).toEqual([]);
    } finally {
      delete process.env.DW_SANDBOX_CANARY;
    }
  });
});

describe("kustomize in the sandbox, with no reference check in front", () => {
  let dir: string;
  let listener: http.Server;
  let port: number;
  const requests: string[] = [];

  beforeAll(async () => {
    dir = tempDir("sandbox-layers");
    listener = http.createServer((req, res) => {
      requests.push(req.url ?? "");
      res.end("stolen: yes\n");
    });
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => listener.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const tree = (name: string, files: Record<string, string>) => {
    const root = path.join(dir, name, "tree");
    const home = path.join(dir, name, "home");
    mkdirSync(home, { recursive: true });
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), text);
    }
    return { root, home };
  };

  it("a committed .gitconfig is not git's configuration: the ext:: rewrite runs nothing", async () => {
    const marker = path.join(dir, "MARKER");
    const { root, home } = tree("gitconfig", {
      ".gitconfig": `[protocol "ext"]\n\tallow = always\n[url "ext::sh -c touch% ${marker} "]\n\tinsteadOf = https://evil.example/\n`,
      "app/kustomization.yaml": "resources:\n- https://evil.example/org/repo.git//app?ref=main\n",
    });
    // The old way (HOME = the checkout) would run it; the sandbox gives an empty HOME.
    writeFileSync(path.join(root, "app", ".gitconfig"), "");
    await expect(runKustomize(bin, root, "app", { home, timeoutMs: 60_000 })).rejects.toThrow(/kustomize build failed/);
    expect(existsSync(marker)).toBe(false);
  });

  // Only where the machine permits network namespaces (a container's default seccomp profile does not); on CI a
  // skip counts as a failure (scripts/test.ts), and our CI machines permit them, so it cannot pass unseen there.
  it.skipIf(isolation.prefix.length === 0)("has no route to anything, loopback included: a generator file over http never arrives", async () => {
    const { root, home } = tree("network", {
      "app/kustomization.yaml": `configMapGenerator:\n- name: stolen\n  files: [http://127.0.0.1:${port}/latest/meta-data]\n`,
    });
    const err = await runKustomize(bin, root, "app", { home, timeoutMs: 60_000 }).catch((e: unknown) => e as Error);
    expect(String(err)).toMatch(/network is unreachable|connection refused|connect:/i);
    expect(requests).toEqual([]);
  });
});
