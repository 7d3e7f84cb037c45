// `npm run collector` runs the collector bundled under plain node
// (scripts/collector-bundle.mjs). What an operator relies on: it starts from
// the sources as they are, it says what is wrong and exits non-zero, it runs
// from a read-only image with the bundle built into it, and it keeps the
// collector's heap limit unless one was given.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BUILD_DIR, bundleEntry, collectorBundle, COLLECTOR_HEAP_MIB, heapLimitSet, ROOT } from "./collector-bundle.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A scratch folder inside the project (.build/), where a bundle's npm imports resolve as the collector's do. */
function scratch(): string {
  const dir = path.join(BUILD_DIR, `test-${crypto.randomUUID()}`);
  fs.mkdirSync(dir, { recursive: true });
  dirs.push(dir);
  return dir;
}

function node(args: string[], opts: { env?: Record<string, string> } = {}) {
  return spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...opts.env }, encoding: "utf8", timeout: 60_000 });
}

describe("the collector's bundle", () => {
  it("bundles our TypeScript (path aliases included) and leaves npm packages to node_modules; it runs under plain node with source-mapped stack traces", async () => {
    const dir = scratch();
    const entry = path.join(dir, "entry.ts");
    fs.writeFileSync(
      entry,
      [
        `import { z } from "zod";`,
        `import { contentHash } from "@/lib/collector/canonical";`,
        `const name: string = z.string().parse("web");`,
        `console.log(JSON.stringify({ name, hash: contentHash({ name }).hash }));`,
        `if (process.env.FAIL) throw new Error("failed on purpose");`,
      ].join("\n"),
    );
    const bundle = await bundleEntry(entry, path.join(dir, "entry.mjs"));
    const text = fs.readFileSync(bundle, "utf8");
    expect(text).toMatch(/from "zod"/); // left to node_modules
    expect(text).toContain("function contentHash"); // ours, bundled

    const ok = node([bundle]);
    expect(ok.stderr).toBe("");
    expect(JSON.parse(ok.stdout)).toMatchObject({ name: "web", hash: expect.stringMatching(/^[0-9a-f]{16,}$/) });

    const failed = node(["--enable-source-maps", bundle], { env: { FAIL: "1" } });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain("failed on purpose");
    expect(failed.stderr).toMatch(/entry\.ts:5/);
  });

  it("is rebuilt from the sources each time: a changed source is what runs next", async () => {
    const dir = scratch();
    const entry = path.join(dir, "entry.ts");
    const out = path.join(dir, "entry.mjs");
    fs.writeFileSync(entry, `console.log("first");\n`);
    expect(node([await bundleEntry(entry, out)]).stdout.trim()).toBe("first");
    fs.writeFileSync(entry, `console.log("second");\n`);
    expect(node([await bundleEntry(entry, out)]).stdout.trim()).toBe("second");
  });

  it("where its folder is read-only (the image), runs the bundle built with it and says so; a writable one is always rebuilt", async () => {
    const dir = scratch();
    const out = path.join(dir, "collector.mjs");
    const readOnly = () => false; // the image's files are root's, its process `node`'s (root itself writes anywhere)
    let built = 0;
    const bundle = async (_entry: string, outfile: string): Promise<string> => {
      built++;
      return outfile;
    };
    fs.writeFileSync(out, `console.log("built with the image");\n`);
    const notices: string[] = [];
    const error = vi.spyOn(console, "error").mockImplementation((m: string) => void notices.push(m));
    try {
      expect(await collectorBundle(out, bundle, readOnly)).toBe(out);
    } finally {
      error.mockRestore();
    }
    expect(built).toBe(0);
    expect(notices.join("\n")).toMatch(/is read-only; running the bundle built \d{4}-\d\d-\d\dT/);
    expect(node([out]).stdout.trim()).toBe("built with the image");

    // Writable: rebuilt even though a bundle is there, and a build error is not papered over with the old one.
    expect(await collectorBundle(out, bundle, () => true)).toBe(out);
    expect(built).toBe(1);
    const broken = async (): Promise<string> => {
      throw new Error("Build failed with 1 error: scripts/collector-main.ts:3:1: ERROR: Unexpected \"}\"");
    };
    await expect(collectorBundle(out, broken, () => true)).rejects.toThrow(/Build failed/);
    // Read-only and nothing built: the build is tried, and its error is the answer.
    fs.rmSync(out);
    await expect(collectorBundle(out, broken, readOnly)).rejects.toThrow(/Build failed/);
  });
});

describe("npm run collector", () => {
  it("says what is wrong with its configuration and exits 2 (as every entry point does), from the bundle its launcher built", () => {
    const dir = scratch();
    const config = path.join(dir, "driftwatch.yaml");
    fs.writeFileSync(config, "environments: not-a-list\n");
    const r = node(["scripts/collector.mjs"], { env: { DRIFTWATCH_CONFIG: config, DRIFTWATCH_DATA_DIR: path.join(dir, "data") } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${config} is not valid`);
    expect(r.stderr).toMatch(/environments: .*expected array/);
    expect(fs.existsSync(path.join(BUILD_DIR, "collector.mjs"))).toBe(true);
  });

  it("keeps the collector's heap limit unless node was given one", () => {
    expect(COLLECTOR_HEAP_MIB).toBe(768);
    expect(heapLimitSet([], "")).toBe(false);
    expect(heapLimitSet(["--enable-source-maps"], "--no-warnings")).toBe(false);
    expect(heapLimitSet(["--max-old-space-size=512"], "")).toBe(true);
    expect(heapLimitSet([], "--max_old_space_size=2048")).toBe(true);
    expect(heapLimitSet([], "--inspect --max-old-space-size 1024")).toBe(true);
  });
});
