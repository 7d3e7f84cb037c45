// Fault injection (unavailable, latency, failing requests, expired tokens,
// dropped watches, forbidden resources) and the plain-HTTP admin endpoint
// that drives it and seeds objects from another process.
import http from "node:http";
import type { Socket } from "node:net";
import type { Authenticator } from "./auth";
import { internalError, serviceUnavailable, StatusError, timeoutError, tooManyRequests } from "./errors";
import { JSON_CT, readBody } from "./http-io";
import { isObj } from "./json";
import type { ActiveWatch } from "./watch";

export interface FaultState {
  unavailable: false | "reset" | "hang";
  latencyMs: number;
  failNext: number;
  failStatus: number;
  forbidden: Array<{ resource: string; group?: string; namespace?: string }>;
}

export interface FaultControls {
  setUnavailable(on: boolean, mode?: "reset" | "hang"): void;
  setLatency(ms: number): void;
  failNext(n: number, status?: number): void;
  expireToken(token: string): void;
  closeWatches(mode?: "end" | "reset"): void;
  forbidResource(resource: string, opts?: { group?: string; namespace?: string }): void;
  clear(): void;
}

/** The connections faults act on. */
export interface FaultTargets {
  auth: Authenticator;
  watches: Set<ActiveWatch>;
  sockets: Set<Socket>;
  /** Requests parked by "hang", released when the fault is lifted. */
  hanging: Set<Socket>;
}

export function newFaultState(): FaultState {
  return { unavailable: false, latencyMs: 0, failNext: 0, failStatus: 500, forbidden: [] };
}

export function faultControls(faults: FaultState, { auth, watches, sockets, hanging }: FaultTargets): FaultControls {
  const faultApi: FaultControls = {
    setUnavailable(on, mode = "reset") {
      faults.unavailable = on ? mode : false;
      if (on) {
        for (const w of [...watches]) w.close("reset");
        if (mode === "reset") for (const s of sockets) s.destroy();
      } else {
        for (const s of hanging) s.destroy();
        hanging.clear();
      }
    },
    setLatency(ms) {
      faults.latencyMs = Math.max(0, ms);
    },
    failNext(n, status = 500) {
      faults.failNext = Math.max(0, n);
      faults.failStatus = status;
    },
    expireToken(token) {
      auth.expire(token);
    },
    closeWatches(mode = "end") {
      for (const w of [...watches]) w.close(mode);
    },
    forbidResource(resource, o = {}) {
      faults.forbidden.push({ resource, group: o.group, namespace: o.namespace });
    },
    clear() {
      faultApi.setUnavailable(false);
      faults.latencyMs = 0;
      faults.failNext = 0;
      faults.failStatus = 500;
      faults.forbidden = [];
      auth.unexpireAll();
    },
  };
  return faultApi;
}

/** The error a failNext fault answers with, shaped like the real server's for that status. */
export function injected(status: number): StatusError {
  switch (status) {
    case 429:
      return tooManyRequests("Too many requests, please try again later.", 1);
    case 503:
      return serviceUnavailable("the server is currently unable to handle the request");
    case 504:
      return timeoutError("request did not complete within requested timeout - context deadline exceeded", 0);
    case 500:
      return internalError("kubesim: injected fault");
    default:
      return new StatusError(status, status >= 500 ? "InternalError" : "BadRequest", `kubesim: injected fault (${status})`);
  }
}

export interface AdminActions {
  objects(): unknown;
  seed(objects: Array<Record<string, unknown>>, opts: { manager?: string }): void;
}

/** Starts the admin endpoint on 127.0.0.1; resolves to the server once it listens. */
export async function startAdminServer(port: number, faults: FaultState, faultApi: FaultControls, watches: Set<ActiveWatch>, api: AdminActions): Promise<http.Server> {
  const adminServer = http.createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? "/", "http://admin.invalid");
      const q = u.searchParams;
      const reply = (code: number, body: unknown) => {
        res.writeHead(code, { "Content-Type": JSON_CT });
        res.end(JSON.stringify(body));
      };
      try {
        const body = req.method === "POST" ? (await readBody(req)).toString("utf8") : "";
        const p = u.pathname.replace(/\/+$/, "");
        if (req.method === "GET" && p === "/faults") return reply(200, { ...faults, openWatches: watches.size });
        if (req.method === "GET" && p === "/objects") return reply(200, api.objects());
        if (req.method === "GET" && p === "/healthz") return reply(200, { ok: true });
        if (req.method !== "POST") return reply(405, { error: "use POST" });
        switch (p) {
          case "/faults/unavailable":
            faultApi.setUnavailable(q.get("on") !== "false", q.get("mode") === "hang" ? "hang" : "reset");
            break;
          case "/faults/latency":
            faultApi.setLatency(Number(q.get("ms") ?? 0));
            break;
          case "/faults/fail":
            faultApi.failNext(Number(q.get("n") ?? 1), Number(q.get("status") ?? 500));
            break;
          case "/faults/expire-token": {
            const t = q.get("token");
            if (!t) return reply(400, { error: "token is required" });
            faultApi.expireToken(t);
            break;
          }
          case "/faults/close-watches":
            faultApi.closeWatches(q.get("mode") === "reset" ? "reset" : "end");
            break;
          case "/faults/forbid": {
            const resource = q.get("resource");
            if (!resource) return reply(400, { error: "resource is required" });
            faultApi.forbidResource(resource, { group: q.get("group") ?? undefined, namespace: q.get("namespace") ?? undefined });
            break;
          }
          case "/faults/clear":
            faultApi.clear();
            break;
          case "/seed": {
            const parsed = JSON.parse(body || "[]") as unknown;
            api.seed(Array.isArray(parsed) ? parsed.filter(isObj) : [], { manager: q.get("manager") ?? undefined });
            break;
          }
          default:
            return reply(404, { error: `unknown admin path ${p}` });
        }
        return reply(200, { ok: true, faults: { ...faults } });
      } catch (e) {
        reply(400, { error: e instanceof Error ? e.message : String(e) });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    adminServer.once("error", reject);
    adminServer.listen(port, "127.0.0.1", () => resolve());
  });
  return adminServer;
}
