import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RepositoryConfig } from "@/lib/config/schema";
import { GitError } from "./errors";
import { syncMirror } from "./mirror";
import { startGitHttpServer, type GitHttpServer } from "./test-support/git-http-server";
import { TestRepo, configMap, tempDir } from "./test-support/repo-fixture";

const TOKEN = "dw-canary-7f3a9c1e5b-token";
const WRONG = "dw-wrong-0d4e2b8a6c-token";
const USER = "x-access-token";
const ENV = "DW_TEST_GIT_TOKEN";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

function forms(secret: string): string[] {
  return [secret, Buffer.from(`${USER}:${secret}`).toString("base64"), Buffer.from(secret).toString("base64").replace(/=+$/, "")];
}

describe("HTTPS token auth against a real smart-HTTP git server", () => {
  let upstream: TestRepo;
  let root: string;
  let mirrors: string;
  let server: GitHttpServer;
  let repo: RepositoryConfig;
  let first: string;

  beforeAll(async () => {
    upstream = TestRepo.create("http-upstream");
    upstream.write("envs/prod/app.yaml", configMap("app", { v: "1" }));
    first = upstream.commit("prod v1");
    root = tempDir("http-root");
    upstream.git("clone", "--quiet", "--bare", upstream.dir, path.join(root, "team", "app.git"));
    mirrors = tempDir("http-mirrors");
    server = await startGitHttpServer({ projectRoot: root, username: USER, token: TOKEN });
    repo = { name: "app", url: `${server.origin}/team/app.git`, auth: { type: "token", tokenEnv: ENV, username: USER } };
  });

  afterEach(() => {
    delete process.env[ENV];
  });

  afterAll(async () => {
    await server.close();
    upstream.cleanup();
    rmSync(root, { recursive: true, force: true });
    rmSync(mirrors, { recursive: true, force: true });
  });

  it("fetches with the token from the environment variable", async () => {
    process.env[ENV] = TOKEN;
    const { heads, mirrorPath } = await syncMirror(repo, mirrors);
    expect(heads).toEqual({ main: first });
    expect(server.rejected).toBe(0);
    expect(server.authorizations.length).toBeGreaterThan(0);

    // The credential is used on the wire and kept nowhere in the mirror.
    for (const file of filesUnder(mirrorPath)) {
      const text = readFileSync(file, "latin1");
      for (const f of forms(TOKEN)) expect(text.includes(f), `${f} found in ${file}`).toBe(false);
    }
    expect(readFileSync(path.join(mirrorPath, "config"), "utf8")).not.toMatch(/extraheader|127\.0\.0\.1/i);
  });

  it("follows new pushes on the next sync", async () => {
    process.env[ENV] = TOKEN;
    upstream.write("envs/prod/app.yaml", configMap("app", { v: "2" }));
    const second = upstream.commit("prod v2");
    upstream.git("push", "--quiet", path.join(root, "team", "app.git"), "main");
    expect((await syncMirror(repo, mirrors)).heads.main).toBe(second);
  });

  it("reports a wrong token as git-auth without the token in the message, and keeps the mirror", async () => {
    process.env[ENV] = TOKEN;
    const before = (await syncMirror(repo, mirrors)).heads;
    process.env[ENV] = WRONG;
    const err = await syncMirror(repo, mirrors).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    const e = err as GitError;
    expect(e.category).toBe("git-auth");
    expect(e.message).toContain(ENV);
    for (const secret of [WRONG, TOKEN]) for (const f of forms(secret)) expect(e.message).not.toContain(f);
    expect(JSON.stringify(e)).not.toContain(WRONG);
    expect(String(e.stack)).not.toContain(WRONG);

    process.env[ENV] = TOKEN;
    expect((await syncMirror(repo, mirrors)).heads).toEqual(before);
  });

  it("says which variable is missing when the token is not set", async () => {
    const err = await syncMirror(repo, mirrors).catch((e: unknown) => e);
    expect(err).toMatchObject({ category: "git-auth", message: expect.stringContaining(`${ENV} (auth.tokenEnv) is not set`) });
  });

  it("reports a repository that needs credentials but has none configured as git-auth", async () => {
    const err = await syncMirror({ ...repo, name: "app-anon", auth: { type: "none" } }, mirrors).catch((e: unknown) => e);
    expect(err).toMatchObject({ category: "git-auth", message: expect.stringContaining("configure auth") });
  });

  it("refuses to send a token over plain http to a non-loopback host", async () => {
    process.env[ENV] = TOKEN;
    const err = await syncMirror({ ...repo, name: "far", url: "http://git.example.com/team/app.git" }, mirrors).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ category: "git-auth", message: expect.stringContaining("use https://") });
  });
});
