// Charts from Helm repositories and OCI registries, fetched by Driftwatch
// itself (never by helm, which renders offline): only from repositories
// driftwatch.yaml lists, each archive checked against the digest the index
// (or the OCI manifest) gives and kept by that digest, so a later render of
// the same version reads the verified copy.
import { createHash } from "node:crypto";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { HelmRepositoryConfig } from "@/lib/config/schema";
import { namedVariable } from "@/lib/env";
import { GitError } from "@/lib/git/errors";
import { rec, str } from "@/lib/git/shape";
import type { ArgoChartReference } from "./argocd-helm";
import { resolveChartVersion } from "./chart-version";
import type { FetchedChart } from "./render-helm";

const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const MAX_CHART_BYTES = 32 * 1024 * 1024;
const OCI_HELM_CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
const OCI_MANIFEST_TYPES = "application/vnd.oci.image.manifest.v1+json";

export interface ChartFetchOptions {
  repositories: readonly HelmRepositoryConfig[];
  /** Folder of verified archives, named by digest (under the data folder). */
  cacheDir: string;
  timeoutMs?: number;
}

/** Argo CD names an OCI repository with or without `oci://`; both name the same place. */
const placeOf = (u: string) => u.replace(/^oci:\/\//, "").replace(/\/+$/, "").toLowerCase();

/**
 * The configured repository a chart's `repoURL` is fetched with: the one of
 * that URL, else (like Argo CD's credential templates) the one whose URL is
 * the longest prefix of it at a path boundary, lending its credentials to
 * the repository the Application names. Null when none matches.
 */
export function helmRepositoryFor(referenced: string, repositories: readonly HelmRepositoryConfig[]): HelmRepositoryConfig | null {
  const wanted = placeOf(referenced);
  let best: HelmRepositoryConfig | null = null;
  for (const r of repositories) {
    const place = placeOf(r.url);
    if (place === wanted) return r;
    if (wanted.startsWith(`${place}/`) && (!best || place.length > placeOf(best.url).length)) best = r;
  }
  if (!best) return null;
  // The matched entry's credentials and transport, at the place the Application names.
  const oci = best.url.startsWith("oci://");
  return { ...best, url: oci && !referenced.startsWith("oci://") ? `oci://${referenced}` : referenced.replace(/\/+$/, "") };
}

function fail(message: string): never {
  throw new GitError("render", message);
}

/** The repository answered, but has no such chart or no version in range: the one application's problem, not the run's. */
function missing(message: string): never {
  throw new GitError("git-missing-ref", message);
}

/** The credential header for `repo`, read from the variables driftwatch.yaml names, when it has one. */
function authorization(repo: HelmRepositoryConfig): string | undefined {
  const auth = repo.auth;
  if (auth.type === "none") return undefined;
  const secret = namedVariable(auth.type === "basic" ? auth.passwordEnv : auth.tokenEnv);
  if (!secret) fail(`helm repository "${repo.name}": the variable ${auth.type === "basic" ? auth.passwordEnv : auth.tokenEnv} named by its auth is not set`);
  return auth.type === "basic" ? `Basic ${Buffer.from(`${auth.username}:${secret}`).toString("base64")}` : `Bearer ${secret}`;
}

async function get(url: string, headers: Record<string, string>, maxBytes: number, timeoutMs: number, what: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(url, { headers, redirect: "follow", signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    fail(`fetching ${what} failed: ${(e as Error).message}`);
  }
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) fail(`${what} is ${declared} bytes, over the ${maxBytes}-byte limit`);
  const body = Buffer.from(await res.arrayBuffer());
  if (body.length > maxBytes) fail(`${what} is over the ${maxBytes}-byte limit`);
  return { status: res.status, body, headers: res.headers };
}

function sha256(body: Buffer): string {
  return `sha256:${createHash("sha256").update(body).digest("hex")}`;
}

async function cached(cacheDir: string, digest: string): Promise<string | null> {
  const file = path.join(cacheDir, `${digest.replace(":", "-")}.tgz`);
  try {
    return (await stat(file)).isFile() ? file : null;
  } catch {
    return null;
  }
}

async function keep(cacheDir: string, digest: string, body: Buffer): Promise<string> {
  await mkdir(cacheDir, { recursive: true });
  const file = path.join(cacheDir, `${digest.replace(":", "-")}.tgz`);
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, body);
  await rename(partial, file);
  return file;
}

/** Fetches (or finds in the cache) the chart `ref` names, verified by digest. */
export async function fetchChart(ref: ArgoChartReference, opts: ChartFetchOptions): Promise<FetchedChart> {
  const repo = helmRepositoryFor(ref.repoURL, opts.repositories);
  if (!repo) fail(`chart repository "${ref.repoURL}" is not in helmRepositories; Driftwatch fetches charts only from the repositories driftwatch.yaml lists`);
  return repo.url.startsWith("oci://") ? fetchFromRegistry(ref, repo, opts) : fetchFromIndex(ref, repo, opts);
}

async function fetchFromIndex(ref: ArgoChartReference, repo: HelmRepositoryConfig, opts: ChartFetchOptions): Promise<FetchedChart> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const base = repo.url.endsWith("/") ? repo.url : `${repo.url}/`;
  const auth = authorization(repo);
  const headers: Record<string, string> = auth ? { authorization: auth } : {};
  const index = await get(new URL("index.yaml", base).href, headers, MAX_INDEX_BYTES, timeoutMs, `the index of helm repository "${repo.name}"`);
  if (index.status !== 200) fail(`the index of helm repository "${repo.name}" answered HTTP ${index.status}`);
  let doc: unknown;
  try {
    doc = parseYaml(index.body.toString("utf8"), { maxAliasCount: 100 });
  } catch (e) {
    fail(`the index of helm repository "${repo.name}" is not YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  const entries = rec(rec(doc)?.entries)?.[ref.chart];
  if (!Array.isArray(entries) || entries.length === 0) missing(`helm repository "${repo.name}" has no chart "${ref.chart}"`);
  const byVersion = new Map(entries.flatMap((e) => (str(rec(e)?.version) ? [[str(rec(e)?.version)!, rec(e)!] as const] : [])));
  const version = resolveChartVersion([...byVersion.keys()], ref.targetRevision);
  if (!version) missing(`helm repository "${repo.name}" has no version of "${ref.chart}" matching "${ref.targetRevision}"`);
  const entry = byVersion.get(version)!;
  const digestHex = str(entry.digest);
  if (!digestHex || !/^[0-9a-f]{64}$/i.test(digestHex)) fail(`the index of "${repo.name}" gives no sha256 digest for ${ref.chart} ${version}: the archive could not be verified`);
  const digest = `sha256:${digestHex.toLowerCase()}`;
  // When the version was published (Argo CD shows it; Driftwatch's approved time for a chart).
  const created = str(entry.created) ?? (entry.created instanceof Date ? entry.created.toISOString() : undefined);
  const hit = await cached(opts.cacheDir, digest);
  if (hit) return { file: hit, digest, name: ref.chart, version, ...(created ? { created } : {}) };
  const urls = Array.isArray(entry.urls) ? entry.urls.filter((u): u is string => typeof u === "string") : [];
  if (urls.length === 0) fail(`the index of "${repo.name}" gives no download URL for ${ref.chart} ${version}`);
  const url = new URL(urls[0]!, base);
  if (url.protocol !== "https:" && url.protocol !== "http:") fail(`${ref.chart} ${version}: download URL scheme ${url.protocol} refused`);
  // As helm without --pass-credentials: the repository's credentials go to its own host only.
  const sameOrigin = url.origin === new URL(base).origin;
  const archive = await get(url.href, sameOrigin ? headers : {}, MAX_CHART_BYTES, timeoutMs, `${ref.chart} ${version}`);
  if (archive.status !== 200) fail(`downloading ${ref.chart} ${version} from "${repo.name}" answered HTTP ${archive.status}`);
  const actual = sha256(archive.body);
  if (actual !== digest) fail(`${ref.chart} ${version} from "${repo.name}" does not match the index's digest (expected ${digest}, got ${actual}); refused`);
  return { file: await keep(opts.cacheDir, digest, archive.body), digest, name: ref.chart, version, ...(created ? { created } : {}) };
}

/**
 * The registry's token flow (`WWW-Authenticate: Bearer realm=…`), as Docker
 * and Helm clients follow it: anonymous for a public chart, with the
 * repository's basic credentials otherwise.
 */
async function registryToken(challenge: string, repo: HelmRepositoryConfig, timeoutMs: number): Promise<string | null> {
  const params = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
  if (!/^Bearer /i.test(challenge) || !params.realm) return null;
  const url = new URL(params.realm);
  if (params.service) url.searchParams.set("service", params.service);
  if (params.scope) url.searchParams.set("scope", params.scope);
  const auth = repo.auth.type === "basic" ? authorization(repo) : undefined;
  const res = await get(url.href, auth ? { authorization: auth } : {}, 1024 * 1024, timeoutMs, `a token for "${repo.name}"`);
  if (res.status !== 200) fail(`the token service of "${repo.name}" answered HTTP ${res.status}`);
  const body = rec(JSON.parse(res.body.toString("utf8")));
  return str(body?.token) ?? str(body?.access_token) ?? null;
}

async function fetchFromRegistry(ref: ArgoChartReference, repo: HelmRepositoryConfig, opts: ChartFetchOptions): Promise<FetchedChart> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const location = repo.url.replace(/^oci:\/\//, "").replace(/\/+$/, "");
  const slash = location.indexOf("/");
  const host = slash < 0 ? location : location.slice(0, slash);
  const name = `${slash < 0 ? "" : `${location.slice(slash + 1)}/`}${ref.chart}`;
  const origin = `${repo.plainHttp ? "http" : "https"}://${host}`;
  let auth = authorization(repo);
  const call = async (p: string, accept: string, max: number, what: string) => {
    let res = await get(`${origin}/v2/${name}/${p}`, { accept, ...(auth ? { authorization: auth } : {}) }, max, timeoutMs, what);
    const challenge = res.headers.get("www-authenticate");
    if (res.status === 401 && challenge) {
      const token = await registryToken(challenge, repo, timeoutMs);
      if (token) {
        auth = `Bearer ${token}`;
        res = await get(`${origin}/v2/${name}/${p}`, { accept, authorization: auth }, max, timeoutMs, what);
      }
    }
    return res;
  };
  let version = ref.targetRevision.trim();
  if (!/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version)) {
    const tags = await call("tags/list", "application/json", MAX_INDEX_BYTES, `the tags of ${name}`);
    if (tags.status !== 200) fail(`registry "${repo.name}" answered HTTP ${tags.status} for the tags of ${name}`);
    // OCI tags cannot hold "+": Helm pushes 1.0.0+build as 1.0.0_build.
    const listed = (rec(JSON.parse(tags.body.toString("utf8")))?.tags as unknown[] | undefined)?.filter((t): t is string => typeof t === "string").map((t) => t.replace(/_/g, "+")) ?? [];
    const resolved = resolveChartVersion(listed, version);
    if (!resolved) missing(`registry "${repo.name}" has no version of ${ref.chart} matching "${ref.targetRevision}"`);
    version = resolved;
  }
  const manifest = await call(`manifests/${encodeURIComponent(version.replace(/\+/g, "_"))}`, OCI_MANIFEST_TYPES, 4 * 1024 * 1024, `the manifest of ${name}:${version}`);
  if (manifest.status !== 200) fail(`registry "${repo.name}" answered HTTP ${manifest.status} for ${name}:${version}`);
  const layers = rec(JSON.parse(manifest.body.toString("utf8")))?.layers;
  const layer = Array.isArray(layers) ? layers.map(rec).find((l) => str(l?.mediaType) === OCI_HELM_CHART_LAYER) : undefined;
  const digest = str(layer?.digest);
  if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) fail(`${name}:${version} in "${repo.name}" is not a Helm chart (no ${OCI_HELM_CHART_LAYER} layer with a sha256 digest)`);
  const hit = await cached(opts.cacheDir, digest);
  if (hit) return { file: hit, digest, name: ref.chart, version };
  const blob = await call(`blobs/${digest}`, "application/octet-stream", MAX_CHART_BYTES, `${name}:${version}`);
  if (blob.status !== 200) fail(`registry "${repo.name}" answered HTTP ${blob.status} for the chart layer of ${name}:${version}`);
  const actual = sha256(blob.body);
  if (actual !== digest) fail(`${name}:${version} from "${repo.name}" does not match its manifest's layer digest (expected ${digest}, got ${actual}); refused`);
  return { file: await keep(opts.cacheDir, digest, blob.body), digest, name: ref.chart, version };
}
