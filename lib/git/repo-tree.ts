// A commit's tree for rendering: listed once from the mirror's object database
// (what the kustomize reference walker and the controller plans read), and
// checked out into a throw-away folder when kustomize must run over it.
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { readBlobs } from "./blob-reader";
import { GitError, gitStderrSummary } from "./errors";
import { runGit } from "./exec";
import type { RepoTree, TreeNode } from "./kustomize-inputs";
import { renderEnv } from "./sandbox";

/** The largest manifest file (or blob) a render reads. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/**
 * Checks the commit out into a throw-away directory: the whole tree, because
 * an overlay reaches its bases through "../". Symbolic links become plain
 * files so a repository cannot make kustomize read files of the collector's host.
 */
export async function materialise(mirrorPath: string, commit: string, dir: string, tree: string, home: string): Promise<void> {
  // The commit's own .gitattributes must not reach a filter or hook of the host's configuration.
  const env = { ...renderEnv(home), GIT_INDEX_FILE: path.join(dir, `.index-${path.basename(tree)}`) };
  const readTree = await runGit(mirrorPath, ["read-tree", commit], { env, category: "render" });
  if (readTree.code !== 0) throw new GitError("render", `reading ${commit} failed: ${gitStderrSummary(readTree.stderr)}`);
  await mkdir(tree, { recursive: true });
  // The mirror is bare; this one command gets a work tree, outside the mirror.
  const checkout = await runGit(
    mirrorPath,
    ["--work-tree", tree, "-c", "core.bare=false", "-c", "core.symlinks=false", "-c", "core.autocrlf=false", "checkout-index", "--all", "--force"],
    { env, cwd: tree, category: "render" },
  );
  if (checkout.code !== 0) throw new GitError("render", `checking out ${commit} failed: ${gitStderrSummary(checkout.stderr)}`);
}

/** The commit's whole tree, listed once: walkKustomization's view, plus every file and link path (for blame and controller plans). */
export interface ListedTree extends RepoTree {
  paths: string[];
  /** The blob id of a file (or link), for reading many at once (readBlobs). */
  oid(file: string): string | undefined;
}

/**
 * Writes only `files` of the listed commit under `root`, from the object
 * database through one `cat-file --batch`: cheaper than a whole checkout when
 * a render reads a known few files (a chart folder and its value files).
 * Links are never among them (callers refuse them first).
 */
export async function materialiseFiles(mirrorPath: string, tree: ListedTree, files: readonly string[], root: string): Promise<void> {
  const oids = files.map((f) => {
    const oid = tree.oid(f);
    if (!oid || tree.node(f)?.type !== "file") throw new GitError("render", `${f} is not a file of the commit`);
    return oid;
  });
  // Synchronous on purpose: these are a chart's few small files, and a thread-pool round trip per file cost
  // more than the writes themselves (half the checkout's time on a busy machine, bench/helm-render.ts).
  for (const d of new Set(files.map((f) => path.dirname(path.join(root, f))))) mkdirSync(d, { recursive: true });
  let i = 0;
  for await (const blob of readBlobs(mirrorPath, oids)) {
    const file = files[i++]!;
    if (!blob.content) throw new GitError("render", `${file}: object missing from the mirror`);
    writeFileSync(path.join(root, file), blob.content);
  }
}

/** The commit's whole tree as walkKustomization sees it; link targets are read up front. */
export async function repoTree(mirrorPath: string, commit: string): Promise<ListedTree> {
  const res = await runGit(mirrorPath, ["ls-tree", "-r", "-t", "-z", commit], { category: "render" });
  if (res.code !== 0) throw new GitError("render", `listing ${commit} failed: ${gitStderrSummary(res.stderr)}`);
  const nodes = new Map<string, TreeNode>();
  const oids = new Map<string, string>();
  const links: Array<{ path: string; oid: string }> = [];
  for (const rec of res.stdout.toString("utf8").split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, oid] = rec.slice(0, tab).split(/\s+/);
    const file = rec.slice(tab + 1);
    if (!mode || !oid) continue;
    oids.set(file, oid);
    if (type === "tree") nodes.set(file, { type: "dir" });
    else if (type === "commit") nodes.set(file, { type: "submodule" });
    else if (mode === "120000") links.push({ path: file, oid });
    else nodes.set(file, { type: "file" });
  }
  let i = 0;
  for await (const blob of readBlobs(mirrorPath, links.map((l) => l.oid))) {
    const link = links[i++]!;
    nodes.set(link.path, { type: "link", target: blob.content?.toString("utf8") ?? "" });
  }
  return {
    paths: [...nodes].filter(([, n]) => n.type === "file" || n.type === "link").map(([p]) => p),
    node: (file) => nodes.get(file),
    list: (folder) => [...nodes].filter(([p, n]) => n.type !== "dir" && p.startsWith(`${folder}/`)).map(([p]) => p),
    oid: (file) => oids.get(file),
    async read(file) {
      const oid = oids.get(file);
      if (!oid) return "";
      const blob = await runGit(mirrorPath, ["cat-file", "blob", oid], { category: "render", maxBytes: MAX_MANIFEST_BYTES });
      return blob.stdout.toString("utf8");
    },
  };
}

/** The tree with one file's text replaced (or added): what the build will really read. */
export function withWrittenFile(tree: RepoTree, write: { file: string; text: string } | undefined): RepoTree {
  if (!write) return tree;
  return {
    node: (file) => (file === write.file ? { type: "file" } : tree.node(file)),
    read: (file) => (file === write.file ? Promise.resolve(write.text) : tree.read(file)),
    list: tree.list && ((folder) => tree.list!(folder)),
  };
}
