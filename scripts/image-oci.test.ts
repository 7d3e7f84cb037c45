// The OCI side of the daemonless image build (tools/image/oci.ts): what it
// writes loads as one image with checked digests, and unpacking applies
// layers the way a runtime does, deletions (whiteouts) included.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readImage, unpackLayers, writeImage } from "../tools/image/oci";

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-image-oci-"));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function tree(dir: string, files: Record<string, string>): string {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

function layerTar(name: string, files: Record<string, string>): string {
  const dir = tree(path.join(tmp, `${name}-files`), files);
  const file = path.join(tmp, `${name}.tar.gz`);
  const r = spawnSync("tar", ["--create", "--gzip", "--file", file, "-C", dir, ...fs.readdirSync(dir)]);
  expect(r.status).toBe(0);
  return file;
}

function listFiles(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
}

describe("unpackLayers", () => {
  it("applies upper layers over lower ones: a .wh. file deletes its entry, .wh..wh..opq empties the folder", () => {
    const lower = layerTar("lower", { "etc/keep": "1", "etc/gone": "2", "cache/old/a": "3", "cache/b": "4", "app/x": "old" });
    const upper = layerTar("upper", { "etc/.wh.gone": "", "cache/.wh..wh..opq": "", "cache/new": "5", "app/x": "new" });
    const root = path.join(tmp, "rootfs");
    const { whiteouts } = unpackLayers([lower, upper], root);
    expect(whiteouts).toBe(2);
    expect(listFiles(root)).toEqual(["app/x", "cache/new", "etc/keep"]);
    expect(fs.readFileSync(path.join(root, "app/x"), "utf8")).toBe("new");
  });
});

describe("writeImage / readImage", () => {
  it("writes one tagged image whose layers, config and Docker manifest agree, and refuses a changed blob", async () => {
    const layerDir = tree(path.join(tmp, "layer"), { "usr/local/bin/tool": "#!/bin/sh\n", "app/package.json": "{}" });
    const config = { Env: ["PATH=/usr/bin", "HOME=/tmp"], User: "node", WorkingDir: "/app", Entrypoint: ["/usr/bin/tini", "--"], Cmd: ["npm", "start"], ExposedPorts: { "3000/tcp": {} } };
    const out = path.join(tmp, "image.tar");
    await writeImage({ layers: [{ dir: layerDir, createdBy: "test" }], config, history: [{ created_by: "test" }] }, path.join(tmp, "oci"), out, "driftwatch:test", () => {});

    const image = readImage(out, path.join(tmp, "read"));
    expect(image.config.config).toEqual(config);
    expect(image.config.rootfs.diff_ids).toHaveLength(1);
    const docker = JSON.parse(fs.readFileSync(path.join(tmp, "read", "manifest.json"), "utf8")) as Array<{ RepoTags: string[]; Layers: string[] }>;
    expect(docker[0]?.RepoTags).toEqual(["driftwatch:test"]);
    expect(docker[0]?.Layers.map((l) => path.join(tmp, "read", l))).toEqual(image.layerFiles);
    unpackLayers(image.layerFiles, path.join(tmp, "rootfs"));
    expect(listFiles(path.join(tmp, "rootfs"))).toEqual(["app/package.json", "usr/local/bin/tool"]);

    // A blob that no longer matches its digest is refused, not unpacked.
    const tampered = path.join(tmp, "tampered");
    fs.cpSync(path.join(tmp, "oci"), tampered, { recursive: true });
    fs.appendFileSync(path.join(tampered, "blobs", "sha256", path.basename(image.layerFiles[0] as string)), "x");
    const tamperedTar = path.join(tmp, "tampered.tar");
    expect(spawnSync("tar", ["--create", "--file", tamperedTar, "-C", tampered, "."]).status).toBe(0);
    expect(() => readImage(tamperedTar, path.join(tmp, "read2"))).toThrow(/has digest/);
  });
});
