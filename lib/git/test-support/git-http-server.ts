// A real smart-HTTP Git server for tests: `git http-backend` (CGI) behind a
// tiny Node server on 127.0.0.1 that demands HTTP Basic auth with one token,
// the way GitHub/GitLab accept `x-access-token:<token>` — or, without a token,
// serves anyone, like a public repository (Flux refuses to send credentials
// over plain HTTP).
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface GitHttpServer {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  origin: string;
  /** Requests answered 401. */
  rejected: number;
  /** Authorization headers seen (to prove the token went over the wire, nowhere else). */
  authorizations: string[];
  /** User-Agent of every request (which clients fetched: git, go-git, …). */
  userAgents: string[];
  close(): Promise<void>;
}

function cgiEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("GIT_")) delete env[k];
  return Object.assign(env, { GIT_CONFIG_NOSYSTEM: "1" }, extra);
}

export async function startGitHttpServer(opts: { projectRoot: string; username?: string; token?: string }): Promise<GitHttpServer> {
  const expected = opts.token === undefined ? null : `Basic ${Buffer.from(`${opts.username ?? ""}:${opts.token}`).toString("base64")}`;
  const state = { rejected: 0, authorizations: [] as string[], userAgents: [] as string[] };

  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    state.userAgents.push(req.headers["user-agent"] ?? "");
    if (auth) state.authorizations.push(auth);
    if (expected !== null && auth !== expected) {
      state.rejected++;
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"', "Content-Type": "text/plain" });
      res.end("authentication required\n");
      req.resume();
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const env: Record<string, string> = {
      GIT_PROJECT_ROOT: opts.projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ""),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      ...(expected !== null && opts.username ? { REMOTE_USER: opts.username } : {}),
      REMOTE_ADDR: "127.0.0.1",
    };
    if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
    if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = String(req.headers["content-encoding"]);
    if (req.headers["git-protocol"]) env.HTTP_GIT_PROTOCOL = String(req.headers["git-protocol"]);

    const cgi = spawn("git", ["http-backend"], { env: cgiEnv(env), stdio: ["pipe", "pipe", "ignore"] });
    req.pipe(cgi.stdin);
    cgi.stdin.on("error", () => undefined);

    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf("\r\n\r\n");
      const lf = head.indexOf("\n\n");
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
      if (end < 0) return;
      const sepLen = end === crlf ? 4 : 2;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString("latin1").split(/\r?\n/)) {
        const i = line.indexOf(":");
        if (i < 0) continue;
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
        else headers[name] = value;
      }
      headersDone = true;
      res.writeHead(status, headers);
      res.write(head.subarray(end + sepLen));
    });
    cgi.on("close", () => {
      if (!headersDone) res.writeHead(500);
      res.end();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get rejected() {
      return state.rejected;
    },
    authorizations: state.authorizations,
    userAgents: state.userAgents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
