import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RepositoryConfig } from "@/lib/config/schema";
import { GitError } from "./errors";
import { mirrorPathFor, syncMirror } from "./mirror";
import { sshCommand } from "./remote-access";
import { isAncestor, listRevisions } from "./revisions";
import { ALICE, BOB, TestRepo, configMap, tempDir } from "./test-support/repo-fixture";

const none = { type: "none" } as const;

describe("syncMirror", () => {
  let upstream: TestRepo;
  let mirrors: string;
  const cleanups: (() => void)[] = [];

  beforeAll(() => {
    upstream = TestRepo.create("mirror-upstream");
    upstream.write("envs/prod/app.yaml", configMap("app", { v: "1" }));
    upstream.commit("one", { author: ALICE, date: "2024-02-01T00:00:00Z" });
    mirrors = tempDir("mirrors");
  });

  afterAll(() => {
    upstream.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
    for (const c of cleanups) c();
  });

  it("creates a bare mirror from a local path on first use and reports the branches", async () => {
    upstream.git("branch", "--quiet", "release");
    const res = await syncMirror({ name: "local", url: upstream.dir, auth: none }, mirrors);
    expect(res.mirrorPath).toBe(path.join(mirrors, "local.git"));
    expect(res.heads).toEqual({ main: upstream.head("main"), release: upstream.head("release") });
    expect(upstream.git("--git-dir", res.mirrorPath, "rev-parse", "--is-bare-repository").trim()).toBe("true");
    // Nothing half-built is left beside it.
    expect(existsSync(mirrorPathFor({ name: "local" }, mirrors))).toBe(true);
  });

  it("fetches over file:// and follows new commits and deleted branches", async () => {
    const repo: RepositoryConfig = { name: "file-url", url: upstream.fileUrl, auth: none };
    await syncMirror(repo, mirrors);
    upstream.write("envs/prod/app.yaml", configMap("app", { v: "2" }));
    const next = upstream.commit("two", { author: BOB, date: "2024-02-02T00:00:00Z" });
    upstream.git("branch", "--quiet", "-D", "release");
    const res = await syncMirror(repo, mirrors);
    expect(res.heads).toEqual({ main: next });
  });

  it("follows a force-pushed branch: history rewritten, ancestry answers change", async () => {
    const repo = TestRepo.create("mirror-force");
    cleanups.push(() => repo.cleanup());
    repo.write("a.yaml", configMap("a", { v: "1" }));
    const c1 = repo.commit("c1", { date: "2024-03-01T00:00:00Z" });
    repo.write("a.yaml", configMap("a", { v: "2" }));
    const c2 = repo.commit("c2", { date: "2024-03-02T00:00:00Z" });
    const cfg: RepositoryConfig = { name: "forced", url: repo.dir, auth: none };
    const { mirrorPath } = await syncMirror(cfg, mirrors);
    const known = new Set((await listRevisions(mirrorPath, "main")).map((r) => r.sha));
    expect(await isAncestor(mirrorPath, c1, c2)).toBe(true);

    repo.git("reset", "--quiet", "--hard", c1);
    repo.write("a.yaml", configMap("a", { v: "2-rewritten" }));
    const c2b = repo.commit("c2 rewritten", { author: BOB, date: "2024-03-03T00:00:00Z" });

    const res = await syncMirror(cfg, mirrors);
    expect(res.heads.main).toBe(c2b);
    expect(await isAncestor(mirrorPath, c2, res.heads.main!)).toBe(false);
    expect(await isAncestor(mirrorPath, c1, res.heads.main!)).toBe(true);
    expect((await listRevisions(mirrorPath, "main", { known })).map((r) => r.sha)).toEqual([c2b]);
  });

  it("keeps the previous mirror when the repository is deleted, and says so as git-fetch", async () => {
    const repo = TestRepo.create("mirror-deleted");
    repo.write("a.yaml", configMap("a", { v: "1" }));
    const c1 = repo.commit("c1");
    const cfg: RepositoryConfig = { name: "deleted", url: repo.dir, auth: none };
    const { mirrorPath } = await syncMirror(cfg, mirrors);
    repo.cleanup();

    const err = await syncMirror(cfg, mirrors).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    expect(err).toMatchObject({ category: "git-fetch", message: expect.stringContaining("does not appear to be a git repository") });
    // The last good state is still readable.
    expect((await listRevisions(mirrorPath, "main")).map((r) => r.sha)).toEqual([c1]);
  });

  it("leaves no mirror behind when the very first fetch fails", async () => {
    const err = await syncMirror({ name: "never", url: path.join(mirrors, "no-such-repo"), auth: none }, mirrors).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ category: "git-fetch" });
    expect(existsSync(path.join(mirrors, "never.git"))).toBe(false);
  });

  it("reports the same branches as git for packed, loose and nested refs, and drops deleted ones", async () => {
    const repo = TestRepo.create("mirror-refs");
    cleanups.push(() => repo.cleanup());
    repo.write("a.yaml", configMap("a", { v: "1" }));
    repo.commit("c1");
    for (const b of ["feature/login", "release/2026/12", "constructor", "gone"]) repo.git("branch", "--quiet", b);
    const cfg: RepositoryConfig = { name: "refs", url: repo.dir, auth: none };
    const { mirrorPath } = await syncMirror(cfg, mirrors);
    const gitSays = () =>
      Object.fromEntries(
        repo
          .git("--git-dir", mirrorPath, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads/")
          .trim()
          .split("\n")
          .map((l) => l.split(" ")),
      );
    // Every ref packed, then some moved or deleted upstream: loose refs over packed ones, deletions pruned.
    repo.git("--git-dir", mirrorPath, "pack-refs", "--all");
    expect(existsSync(path.join(mirrorPath, "packed-refs"))).toBe(true);
    repo.write("a.yaml", configMap("a", { v: "2" }));
    const c2 = repo.commit("c2");
    repo.git("branch", "--quiet", "--force", "feature/login", c2);
    repo.git("branch", "--quiet", "-D", "gone");
    const res = await syncMirror(cfg, mirrors);
    expect(res.heads).toEqual(gitSays());
    expect(res.heads).toEqual({ main: c2, "feature/login": c2, "release/2026/12": repo.head("release/2026/12"), constructor: repo.head("constructor") });
  });

  it("queues concurrent syncs of one mirror instead of failing on git's ref locks", async () => {
    const cfg: RepositoryConfig = { name: "concurrent", url: upstream.dir, auth: none };
    const results = await Promise.all([1, 2, 3, 4].map(() => syncMirror(cfg, mirrors)));
    for (const r of results) expect(r.heads.main).toBe(upstream.head("main"));
  });

  it("recovers from lock files left by a killed collector", async () => {
    const cfg: RepositoryConfig = { name: "locked", url: upstream.dir, auth: none };
    const { mirrorPath } = await syncMirror(cfg, mirrors);
    const lock = path.join(mirrorPath, "refs", "heads", "main.lock");
    writeFileSync(lock, "");
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, anHourAgo, anHourAgo);
    const next = upstream.commit("after the crash");
    expect((await syncMirror(cfg, mirrors)).heads.main).toBe(next);
    expect(existsSync(lock)).toBe(false);
  });

  it("rebuilds a mirror folder that is not a repository", async () => {
    const broken = path.join(mirrors, "broken.git");
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, "junk"), "x");
    const res = await syncMirror({ name: "broken", url: upstream.dir, auth: none }, mirrors);
    expect(res.heads.main).toBe(upstream.head("main"));
  });

  it("times out a remote that accepts connections but never answers", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const started = Date.now();
      const err = await syncMirror({ name: "silent", url: `http://127.0.0.1:${port}/x.git`, auth: none }, mirrors, {
        timeoutMs: 1500,
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({ category: "git-fetch", message: expect.stringContaining("timed out after") });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it("refuses URLs that would run programs", async () => {
    const err = await syncMirror({ name: "ext", url: "ext::sh -c touch% /tmp/pwned", auth: none }, mirrors).catch((e: unknown) => e);
    expect(err).toMatchObject({ category: "git-fetch", message: expect.stringContaining("not allowed") });
  });

  describe("ssh", () => {
    it("refuses a missing key file before running anything", async () => {
      const err = await syncMirror(
        { name: "ssh-nokey", url: "git@127.0.0.1:team/app.git", auth: { type: "ssh", keyFile: "/nonexistent/id_ed25519" } },
        mirrors,
      ).catch((e: unknown) => e);
      expect(err).toMatchObject({ category: "git-auth", message: expect.stringContaining("/nonexistent/id_ed25519") });
    });

    it("fails fast with git-fetch when the host does not answer", async () => {
      const probe = net.createServer();
      await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
      const port = (probe.address() as net.AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      const err = await syncMirror({ name: "ssh-closed", url: `ssh://git@127.0.0.1:${port}/team/app.git`, auth: none }, mirrors, {
        timeoutMs: 20_000,
      }).catch((e: unknown) => e);
      expect(err).toMatchObject({ category: "git-fetch", message: expect.stringContaining("Connection refused") });
    });

    it("hands git an ssh command with the key file and known hosts (ssh stood in by a local program)", async () => {
      // No sshd can run here; a program named `ssh` early on PATH records how
      // git called it and runs the requested git-upload-pack locally, as sshd would.
      const bin = tempDir("fake-ssh");
      const argsFile = path.join(bin, "args");
      writeFileSync(
        path.join(bin, "ssh"),
        `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nfor last; do :; done\nexec sh -c "$last"\n`,
        { mode: 0o755 },
      );
      writeFileSync(path.join(bin, "id_ed25519"), "not a real key\n", { mode: 0o600 });
      writeFileSync(path.join(bin, "known_hosts"), "git.example.invalid ssh-ed25519 AAAA\n");
      const savedPath = process.env.PATH;
      process.env.PATH = `${bin}:${savedPath ?? ""}`;
      try {
        const res = await syncMirror(
          {
            name: "ssh-standin",
            url: `git@git.example.invalid:${upstream.dir}`,
            auth: { type: "ssh", keyFile: path.join(bin, "id_ed25519"), knownHostsFile: path.join(bin, "known_hosts") },
          },
          mirrors,
        );
        expect(res.heads.main).toBe(upstream.head("main"));
        const args = readFileSync(argsFile, "utf8").split("\n");
        expect(args).toEqual(
          expect.arrayContaining([
            "-i",
            path.join(bin, "id_ed25519"),
            "IdentitiesOnly=yes",
            "StrictHostKeyChecking=yes",
            `UserKnownHostsFile=${path.join(bin, "known_hosts")}`,
            "BatchMode=yes",
            "git@git.example.invalid",
          ]),
        );
      } finally {
        process.env.PATH = savedPath;
        rmSync(bin, { recursive: true, force: true });
      }
    });

    it("builds an ssh command that uses only the given key and checks the host", () => {
      const cmd = sshCommand({ keyFile: "/keys/it's key", knownHostsFile: "/keys/known_hosts" });
      expect(cmd).toContain(`-i '/keys/it'\\''s key'`);
      expect(cmd).toContain("IdentitiesOnly=yes");
      expect(cmd).toContain("StrictHostKeyChecking=yes");
      expect(cmd).toContain("UserKnownHostsFile='/keys/known_hosts'");
      expect(cmd).toContain("BatchMode=yes");
    });
  });
});
