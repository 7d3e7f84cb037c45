// The OCI image layout, written directly (no Go tool needed for a handful of
// JSON files and gzipped tars), packed as one tar that `docker load` and
// `podman load` accept (index.json for OCI readers, manifest.json for Docker's
// older loader), and unpacked again for verification.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import type { ImageConfig, Layer } from "./bases";
import type { History } from "./build";
import { removeTree, sh } from "./chroot";

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

export interface ImageFile {
  config: { config: ImageConfig; rootfs: { diff_ids: string[] } };
  layerFiles: string[];
}

const MANIFEST = "application/vnd.oci.image.manifest.v1+json";

/**
 * Rewrites overlayfs deletions as OCI whiteouts: a 0/0 character device
 * becomes `.wh.<name>`, a folder marked opaque gains `.wh..wh..opq`.
 */
export function overlayToOciWhiteouts(dir: string): void {
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isCharacterDevice() && fs.lstatSync(p).rdev === 0) {
        fs.rmSync(p);
        fs.writeFileSync(path.join(d, `.wh.${entry.name}`), "");
      } else if (entry.isDirectory()) {
        if (isOpaque(p)) fs.writeFileSync(path.join(p, ".wh..wh..opq"), "");
        walk(p);
      }
    }
  };
  walk(dir);
}

function isOpaque(dir: string): boolean {
  const r = spawnSync("getfattr", ["--absolute-names", "--only-values", "-n", "trusted.overlay.opaque", dir], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() === "y";
}

class Hasher extends Transform {
  readonly hash = createHash("sha256");
  size = 0;
  override _transform(chunk: Buffer, _enc: string, cb: () => void) {
    this.hash.update(chunk);
    this.size += chunk.length;
    this.push(chunk);
    cb();
  }
}

async function writeLayer(dir: string, blobs: string): Promise<{ descriptor: Descriptor; diffId: string }> {
  const entries = fs.readdirSync(dir).sort();
  // Numeric owners, names sorted, no access/change times: the same folder gives the same bytes.
  const tar = spawn("tar", ["--create", "--numeric-owner", "--sort=name", "--format=posix", "--pax-option=delete=atime,delete=ctime", "-C", dir, "--", ...entries], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => tar.on("exit", resolve));
  const raw = new Hasher();
  const gz = new Hasher();
  const tmp = path.join(blobs, `.partial-${process.pid}`);
  await pipeline(tar.stdout, raw, zlib.createGzip({ level: 6 }), gz, fs.createWriteStream(tmp));
  if ((await exited) !== 0) throw new Error(`tar of ${dir} failed`);
  const hex = gz.hash.digest("hex");
  fs.renameSync(tmp, path.join(blobs, hex));
  return { descriptor: { mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", digest: `sha256:${hex}`, size: gz.size }, diffId: `sha256:${raw.hash.digest("hex")}` };
}

function writeBlob(blobs: string, content: string): Descriptor & { hex: string } {
  const hex = createHash("sha256").update(content).digest("hex");
  fs.writeFileSync(path.join(blobs, hex), content);
  return { mediaType: "", digest: `sha256:${hex}`, size: Buffer.byteLength(content), hex };
}

/** Writes the image as an OCI layout in `layoutDir` and packs it as `outFile`. */
export async function writeImage(image: { layers: Layer[]; config: ImageConfig; history: History[] }, layoutDir: string, outFile: string, tag: string, log: (l: string) => void): Promise<void> {
  removeTree(layoutDir);
  const blobs = path.join(layoutDir, "blobs", "sha256");
  fs.mkdirSync(blobs, { recursive: true });
  const layers: Descriptor[] = [];
  const diffIds: string[] = [];
  for (const layer of image.layers) {
    overlayToOciWhiteouts(layer.dir);
    const { descriptor, diffId } = await writeLayer(layer.dir, blobs);
    log(`image: layer ${descriptor.digest.slice(7, 19)} ${(descriptor.size / 1048576).toFixed(1)} MiB  ${layer.createdBy.slice(0, 100)}`);
    layers.push(descriptor);
    diffIds.push(diffId);
  }
  const created = new Date().toISOString();
  const config = writeBlob(
    blobs,
    JSON.stringify({ created, architecture: "amd64", os: "linux", config: image.config, rootfs: { type: "layers", diff_ids: diffIds }, history: image.history.map((h) => ({ created, ...h })) }),
  );
  const manifest = writeBlob(
    blobs,
    JSON.stringify({ schemaVersion: 2, mediaType: MANIFEST, config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: config.digest, size: config.size }, layers }),
  );
  const [name, version = "latest"] = tag.split(":");
  fs.writeFileSync(path.join(layoutDir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  fs.writeFileSync(
    path.join(layoutDir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [{ mediaType: MANIFEST, digest: manifest.digest, size: manifest.size, annotations: { "org.opencontainers.image.ref.name": version, "io.containerd.image.name": `${name}:${version}` } }],
    }),
  );
  fs.writeFileSync(
    path.join(layoutDir, "manifest.json"),
    JSON.stringify([{ Config: `blobs/sha256/${config.hex}`, RepoTags: [`${name}:${version}`], Layers: layers.map((l) => `blobs/sha256/${l.digest.slice(7)}`) }]),
  );
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  sh(["tar", "--create", "--numeric-owner", "--file", outFile, "-C", layoutDir, "oci-layout", "index.json", "manifest.json", "blobs"]);
}

/** Reads an image tar written by writeImage (or any single-image OCI layout tar). */
export function readImage(imageTar: string, into: string): ImageFile {
  removeTree(into);
  fs.mkdirSync(into, { recursive: true });
  sh(["tar", "--extract", "--file", imageTar, "-C", into]);
  const blob = (digest: string) => path.join(into, "blobs", ...digest.split(":"));
  const index = JSON.parse(fs.readFileSync(path.join(into, "index.json"), "utf8")) as { manifests: Descriptor[] };
  const manifest = JSON.parse(fs.readFileSync(blob((index.manifests[0] as Descriptor).digest), "utf8")) as { config: Descriptor; layers: Descriptor[] };
  for (const d of [manifest.config, ...manifest.layers]) {
    const actual = `sha256:${createHash("sha256").update(fs.readFileSync(blob(d.digest))).digest("hex")}`;
    if (actual !== d.digest) throw new Error(`image: blob ${d.digest} has digest ${actual}`);
  }
  return { config: JSON.parse(fs.readFileSync(blob(manifest.config.digest), "utf8")) as ImageFile["config"], layerFiles: manifest.layers.map((l) => blob(l.digest)) };
}

/**
 * Applies layers in order as a runtime does: a layer's whiteouts first delete
 * what lower layers put there (`.wh.<name>` the named entry, `.wh..wh..opq`
 * everything in the folder), then its files are extracted, whiteouts excluded.
 */
export function unpackLayers(layerFiles: string[], rootfs: string): { whiteouts: number } {
  removeTree(rootfs);
  fs.mkdirSync(rootfs, { recursive: true });
  let whiteouts = 0;
  for (const file of layerFiles) {
    const names = sh(["tar", "--list", "--gzip", "--file", file]).split("\n").filter(Boolean);
    for (const name of names) {
      const clean = path.posix.normalize(name.replace(/^\.?\//, ""));
      const base = path.posix.basename(clean);
      if (!base.startsWith(".wh.")) continue;
      whiteouts++;
      const parent = path.join(rootfs, path.posix.dirname(clean));
      if (path.relative(rootfs, parent).startsWith("..")) throw new Error(`image: whiteout ${name} points outside the root`);
      if (base === ".wh..wh..opq") {
        if (fs.existsSync(parent)) for (const e of fs.readdirSync(parent)) fs.rmSync(path.join(parent, e), { recursive: true, force: true });
      } else fs.rmSync(path.join(parent, base.slice(4)), { recursive: true, force: true });
    }
    sh(["tar", "--extract", "--gzip", "--file", file, "--numeric-owner", "--same-permissions", "--same-owner", "--exclude=.wh.*", "-C", rootfs]);
  }
  return { whiteouts };
}
