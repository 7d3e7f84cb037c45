// The daemonless image build (tools/image, `npm run image`) executes
// deploy/Dockerfile itself, so the two cannot describe different images; these
// tests keep the Dockerfile within what that build can execute, and keep its
// helm the helm the test suite proves (tools/realkube).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recipes } from "../tools/realkube/binaries";
import { dockerignore, parseDockerfile, promisedByDockerfile } from "../tools/image/dockerfile";

const root = path.resolve(import.meta.dirname, "..");
const dockerfileText = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");

describe("deploy/Dockerfile as the daemonless build reads it", () => {
  it("is executable by the daemonless build: every stage on a base it can stand in for", () => {
    const parsed = parseDockerfile(dockerfileText);
    expect(parsed.stages.map((s) => s.name)).toEqual(["helm", "deps", "build", "runtime"]);
    expect(parsed.stages.map((s) => s.from)).toEqual(["golang:1.26-bookworm", "node:20-bookworm-slim", "deps", "node:20-bookworm-slim"]);
  });

  it("builds helm from the module, package and version stamp tools/realkube builds the tested helm from", () => {
    const helm = parseDockerfile(dockerfileText).stages.find((s) => s.name === "helm");
    const copied = helm?.instructions.flatMap((i) => (i.op === "COPY" ? i.sources : []));
    expect(copied).toContain(`tools/realkube/${recipes.helm.module}/go.mod`);
    expect(copied).toContain(`tools/realkube/${recipes.helm.module}/go.sum`);
    const run = helm?.instructions.find((i) => i.op === "RUN");
    expect(run?.op === "RUN" && run.command).toContain(` ${recipes.helm.pkg}`);
    expect(run?.op === "RUN" && run.command).toContain(recipes.helm.ldflags);
    const pinned = /helm\.sh\/helm\/v4 (v\S+)/.exec(fs.readFileSync(path.join(root, "tools/realkube/helm/go.mod"), "utf8"))?.[1];
    expect(promisedByDockerfile(dockerfileText).helmVersion).toBe(pinned);
  });

  it("promises the runtime contract the deployment relies on", () => {
    const promised = promisedByDockerfile(dockerfileText);
    expect(promised.env).toEqual(expect.arrayContaining(["HELM_BIN=/usr/local/bin/helm", "NODE_ENV=production", "HOME=/tmp", "PORT=3000", "DRIFTWATCH_CONFIG=/etc/driftwatch/driftwatch.yaml"]));
    expect(promised).toMatchObject({ user: "node", workdir: "/app", entrypoint: ["/usr/bin/tini", "--"], cmd: ["npm", "start"], ports: ["3000/tcp"], nodeMajor: "20" });
  });
});

describe("parseDockerfile", () => {
  it("joins continued lines, drops comment lines inside them, and reads ENV pairs with quotes", () => {
    const parsed = parseDockerfile(`ARG BASE=node:20-bookworm-slim
FROM \${BASE} AS one
# a comment
RUN apt-get update \\
# dropped, as Docker drops it
 && echo done
ENV A=1 \\
    B="two words" C=3
ENV LEGACY some value
`);
    const [stage] = parsed.stages;
    expect(stage?.from).toBe("node:20-bookworm-slim");
    expect(stage?.instructions).toEqual([
      { op: "RUN", line: 4, command: "apt-get update  && echo done" },
      { op: "ENV", line: 7, pairs: [["A", "1"], ["B", "two words"], ["C", "3"]] },
      { op: "ENV", line: 9, pairs: [["LEGACY", "some value"]] },
    ]);
  });

  it("refuses what it cannot execute faithfully, naming the line", () => {
    expect(() => parseDockerfile("FROM node:20-bookworm-slim\nADD https://example.com/x /x\n")).toThrow(/line 2: ADD is not supported/);
    expect(() => parseDockerfile("FROM node:20-bookworm-slim\nCMD npm start\n")).toThrow(/line 2: CMD must use the JSON/);
    expect(() => parseDockerfile("FROM node:20-bookworm-slim\nCOPY --chown=node . .\n")).toThrow(/line 2: COPY --chown=node is not supported/);
    expect(() => parseDockerfile("FROM node:20-bookworm-slim\nENV A=$B\n")).toThrow(/line 2: ENV values with variable references/);
  });
});

describe("dockerignore", () => {
  it("anchors patterns at the context root as Docker does", () => {
    const ignored = dockerignore(fs.readFileSync(path.join(root, "deploy", "Dockerfile.dockerignore"), "utf8"));
    expect(ignored("node_modules")).toBe(true);
    expect(ignored("node_modules/next/package.json")).toBe(true);
    expect(ignored(".git")).toBe(true);
    expect(ignored("lib/db/generated/client.ts")).toBe(true);
    expect(ignored("lib/db/index.ts")).toBe(false);
    expect(ignored("tsconfig.tsbuildinfo")).toBe(true);
    // `*` stays within one segment: only the root's build info is ignored, as with Docker.
    expect(ignored("packages/kubesim/tsconfig.tsbuildinfo")).toBe(false);
    expect(ignored("packages/kubesim/node_modules/x")).toBe(false);
  });

  it("spans folders with ** and re-includes with !", () => {
    const ignored = dockerignore("**/*.log\n!keep/important.log\n");
    expect(ignored("a/b/c.log")).toBe(true);
    expect(ignored("c.log")).toBe(true);
    expect(ignored("keep/important.log")).toBe(false);
    expect(ignored("a/b/c.txt")).toBe(false);
  });
});
