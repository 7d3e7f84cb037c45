// The HTTPS front of the imitation: routing of API paths, authentication and
// authorization, content negotiation (JSON, Table, PartialObjectMetadata,
// aggregated discovery), fault injection, the admin endpoint, persistence and
// the kubeconfig it writes.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import fs from "node:fs/promises";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { ApiCore, gr as grOf, type DeleteOptions, type FieldValidation, type ListQuery, type WriteOptions } from "./apiserver";
import { authorize, Authenticator, forbiddenError, newToken, type RequestAttributes, type TokenScope, type User } from "./auth";
import { tlsMaterial } from "./certs";
import { Controllers } from "./controllers";
import {
  aggregatedDiscovery,
  AGGREGATED_CONTENT_TYPE,
  apiGroup,
  apiGroupList,
  apiVersions,
  resourceList,
  SERVER_VERSION,
} from "./discovery";
import { badRequest, notFound, internalError, invalid, methodNotSupported, notAcceptable, StatusError, tooManyRequests, serviceUnavailable, timeoutError, unsupportedMediaType } from "./errors";
import { asObj, asStr, clone, isObj, type Obj } from "./json";
import { canonicalize, served } from "./objects";
import { docHash, openAPIv3Document, openAPIv3Root } from "./openapi";
import { apiVersionOf, Registry, typesFromCRD, type ResourceType } from "./registry";
import { decodeProtobufObject, PROTOBUF_CT } from "./protobuf";
import { parseFieldSelector, parseLabelSelector } from "./selectors";
import { Store, objectKey } from "./store";
import { toTable, type TableOptions } from "./table";
import { startWatch, type ActiveWatch } from "./watch";

export interface KubeSimOptions {
  /** 0/undefined = random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** JSON file to load from and persist to (debounced writes). */
  state?: string;
  /** Watch event history window per resource (for 410 Expired); default 1000. */
  historyLimit?: number;
  /** Where to write the kubeconfig; default a temp file. */
  kubeconfigPath?: string;
  /** Name used in the kubeconfig (default "kubesim"). */
  clusterName?: string;
  /** HTTP admin endpoint for fault controls on another port (default random; false = off). */
  adminPort?: number | false;
  /** Run the minimal controllers (deployment/statefulset status, namespace defaults); default true. */
  controllers?: boolean;
  /** Interval between watch BOOKMARK events; default 60 s like the real watch cache. */
  bookmarkIntervalMs?: number;
  /** Delay before controllers reconcile; default 0. */
  controllerDelayMs?: number;
  /** Fixed bearer tokens instead of generated (or persisted) ones. */
  tokens?: { admin?: string; readonly?: string };
}

export interface KubeSim {
  url: string;
  caPem: string;
  kubeconfigPath: string;
  tokens: { admin: string; readonly: string };
  adminUrl: string | null;
  addToken(token: string, scope: TokenScope): void;
  seed(objects: Array<Record<string, unknown>>, opts?: { manager?: string }): void;
  objects(): Array<Record<string, unknown>>;
  faults: {
    setUnavailable(on: boolean, mode?: "reset" | "hang"): void;
    setLatency(ms: number): void;
    failNext(n: number, status?: number): void;
    expireToken(token: string): void;
    closeWatches(mode?: "end" | "reset"): void;
    forbidResource(resource: string, opts?: { group?: string; namespace?: string }): void;
    clear(): void;
  };
  stop(): Promise<void>;
}

interface FaultState {
  unavailable: false | "reset" | "hang";
  latencyMs: number;
  failNext: number;
  failStatus: number;
  forbidden: Array<{ resource: string; group?: string; namespace?: string }>;
}

const JSON_CT = "application/json";

function parseAccept(header: string | undefined): Array<{ type: string; params: Record<string, string> }> {
  return (header ?? "*/*")
    .split(",")
    .map((part) => {
      const [type, ...ps] = part.split(";").map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of ps) {
        const i = p.indexOf("=");
        if (i > 0) params[p.slice(0, i).trim()] = p.slice(i + 1).trim();
      }
      return { type: (type ?? "").toLowerCase(), params };
    })
    .filter((x) => x.type);
}

type Output = { kind: "json" } | { kind: "yaml" } | { kind: "table"; version: "v1" | "v1beta1" } | { kind: "partial"; list: boolean };

function negotiate(accept: string | undefined, allowSpecial: boolean): Output {
  for (const a of parseAccept(accept)) {
    if (a.params.as) {
      if (!allowSpecial) continue;
      if (a.params.as === "Table" && a.params.g === "meta.k8s.io" && (a.params.v === "v1" || a.params.v === "v1beta1")) return { kind: "table", version: a.params.v };
      if ((a.params.as === "PartialObjectMetadata" || a.params.as === "PartialObjectMetadataList") && a.params.g === "meta.k8s.io" && a.params.v === "v1") {
        return { kind: "partial", list: a.params.as.endsWith("List") };
      }
      continue;
    }
    if (a.type === "application/json" || a.type === "*/*" || a.type === "application/*") return { kind: "json" };
    if (a.type === "application/yaml") return { kind: "yaml" };
  }
  throw notAcceptable([JSON_CT, "application/yaml", "application/vnd.kubernetes.protobuf"]);
}

function managerFromUserAgent(ua: string | undefined): string {
  // prefixFromUserAgent: characters before the first "/", printable only, at most 128 bytes.
  const prefix = (ua ?? "").split("/")[0] ?? "";
  let out = "";
  for (const ch of prefix) {
    if (/\p{C}/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function parseObjectBody(bodyBuf: Buffer, contentType: string, expectedKind: string): unknown {
  const ct = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (ct === PROTOBUF_CT) return decodeProtobufObject(bodyBuf, expectedKind);
  const body = bodyBuf.toString("utf8");
  if (ct === "application/yaml" || ct === "application/x-yaml") {
    try {
      return YAML.parse(body);
    } catch (e) {
      throw badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
    }
  }
  if (ct !== "" && ct !== JSON_CT && ct !== "*/*") throw unsupportedMediaType([JSON_CT, "application/yaml", "application/vnd.kubernetes.protobuf"]);
  try {
    return JSON.parse(body);
  } catch (e) {
    throw badRequest(`Object 'Kind' is missing in '${body.slice(0, 200)}'${(e as Error).message ? "" : ""}`);
  }
}

interface Route {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  watchPath: boolean;
}

function parseResourcePath(segs: string[]): Route | undefined {
  let group = "";
  let version: string;
  let rest: string[];
  if (segs[0] === "api") {
    if (segs.length < 3) return undefined;
    version = segs[1] as string;
    rest = segs.slice(2);
  } else if (segs[0] === "apis") {
    if (segs.length < 4) return undefined;
    group = segs[1] as string;
    version = segs[2] as string;
    rest = segs.slice(3);
  } else return undefined;
  let watchPath = false;
  if (rest[0] === "watch") {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && !(rest.length === 3 && (rest[2] === "status" || rest[2] === "finalize"))) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  return { group, version, namespace, resource: rest[0] as string, name: rest[1], subresource: rest[2], watchPath };
}

function notFoundPath(): StatusError {
  return new StatusError(404, "NotFound", "the server could not find the requested resource", {});
}

export async function startKubeSim(opts: KubeSimOptions = {}): Promise<KubeSim> {
  const tls = tlsMaterial();
  const host = opts.host ?? "127.0.0.1";
  const clusterName = opts.clusterName ?? "kubesim";
  const registry = new Registry();
  const store = new Store(opts.historyLimit ?? 1000);
  const auth = new Authenticator();
  const watches = new Set<ActiveWatch>();
  const sockets = new Set<Socket>();
  const hanging = new Set<Socket>();
  const faults: FaultState = { unavailable: false, latencyMs: 0, failNext: 0, failStatus: 500, forbidden: [] };
  // Assigned once the core exists; the core's hooks reach it lazily.
  const ctl: { controllers?: Controllers } = {};
  let stopping = false;

  const core: ApiCore = new ApiCore(registry, store, {
    crdChanged(crd, name) {
      if (!crd) registry.removeCRD(name);
      else registry.setCRD(name, typesFromCRD(crd));
    },
    deletionRequested(rt, obj) {
      ctl.controllers?.deletionRequested(rt, obj);
    },
  });

  // ---- state ----
  let tokens = { admin: newToken(), readonly: newToken() };
  let loaded = false;
  if (opts.state) {
    try {
      const raw = JSON.parse(await fs.readFile(opts.state, "utf8")) as unknown;
      const st = asObj(raw);
      if (st && Array.isArray(st.objects)) {
        const tk = asObj(st.tokens);
        if (tk && typeof tk.admin === "string" && typeof tk.readonly === "string") tokens = { admin: tk.admin, readonly: tk.readonly };
        const objs = st.objects.filter(isObj);
        const crds = objs.filter((o) => o.kind === "CustomResourceDefinition");
        for (const crd of crds) registry.setCRD(asStr(asObj(crd.metadata)?.name) ?? "", typesFromCRD(crd));
        let maxRV = Number(st.resourceVersion ?? 1) || 1;
        for (const o of objs) {
          const [group, version] = String(o.apiVersion ?? "").includes("/") ? String(o.apiVersion).split("/") : ["", String(o.apiVersion ?? "")];
          const rt = registry.all().find((t) => t.group === group && t.version === version && t.kind === o.kind) ?? registry.byKind(String(o.apiVersion), String(o.kind));
          if (!rt) continue;
          const m = asObj(o.metadata) ?? {};
          const rv = Number(m.resourceVersion ?? 0) || 0;
          maxRV = Math.max(maxRV, rv);
          store.load(`${rt.group}/${rt.resource}`, objectKey(rt.namespaced ? asStr(m.namespace) : undefined, asStr(m.name) ?? ""), o, rv);
          if (rt.kind === "Service") core.noteAllocated(o);
        }
        store.rv = maxRV;
        store.resetHistory();
        loaded = true;
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  if (opts.tokens?.admin) tokens.admin = opts.tokens.admin;
  if (opts.tokens?.readonly) tokens.readonly = opts.tokens.readonly;
  auth.add(tokens.admin, { verbs: "write", user: "kubesim-admin" });
  auth.add(tokens.readonly, { verbs: "read", user: "kubesim-readonly" });

  let saveTimer: NodeJS.Timeout | undefined;
  const snapshotState = () =>
    JSON.stringify({
      kind: "KubeSimState",
      version: 1,
      resourceVersion: String(store.rv),
      tokens,
      objects: store.all().map((x) => x.stored.obj),
    });
  // Saves are serialised: a debounced save and the final save on stop() must
  // not interleave their write-then-rename of the same temporary file.
  let saving: Promise<void> = Promise.resolve();
  let saveSeq = 0;
  const saveNow = (): Promise<void> => {
    const state = opts.state;
    if (!state) return Promise.resolve();
    saving = saving.catch(() => undefined).then(async () => {
      const tmp = `${state}.tmp-${process.pid}-${++saveSeq}`;
      await fs.mkdir(path.dirname(state), { recursive: true });
      await fs.writeFile(tmp, snapshotState());
      await fs.rename(tmp, state);
    });
    return saving;
  };
  if (opts.state) {
    store.onChange = () => {
      if (saveTimer || stopping) return;
      saveTimer = setTimeout(() => {
        saveTimer = undefined;
        saveNow().catch((e: unknown) => console.error("kubesim: could not persist state", e));
      }, 200);
      saveTimer.unref?.();
    };
  }

  const controllers = new Controllers(core, registry, { enabled: opts.controllers !== false, caPem: tls.caPem, delayMs: opts.controllerDelayMs });
  ctl.controllers = controllers;
  controllers.start();

  // ---- HTTP ----
  const server = https.createServer({ key: tls.keyPem, cert: tls.certPem }, (req, res) => {
    void handle(req, res);
  });
  server.on("connection", (s: Socket) => {
    if (faults.unavailable === "reset") {
      s.destroy();
      return;
    }
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => undefined);
  server.keepAliveTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;

  if (!loaded) bootstrap();

  function bootstrap(): void {
    const ns = registry.find("", "v1", "namespaces") as ResourceType;
    for (const n of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      core.createAs(ns, { apiVersion: "v1", kind: "Namespace", metadata: { name: n } }, "kube-apiserver");
    }
    const svc = registry.find("", "v1", "services") as ResourceType;
    core.createAs(
      svc,
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
        spec: { clusterIP: "10.96.0.1", ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: port }] },
      },
      "kube-apiserver",
    );
  }

  const send = (res: ServerResponse, code: number, body: unknown, contentType = JSON_CT, warnings: string[] = []) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string | string[]> = {
      "Content-Type": contentType,
      "Cache-Control": "no-cache, private",
      "Audit-Id": randomUUID(),
      "X-Kubernetes-Pf-Flowschema-Uid": "c8a3b1c2-4d55-4a2d-9e5e-5f1b8a7a0001",
      "X-Kubernetes-Pf-Prioritylevel-Uid": "c8a3b1c2-4d55-4a2d-9e5e-5f1b8a7a0002",
    };
    if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    res.writeHead(code, headers);
    res.end(text);
  };

  const sendError = (res: ServerResponse, e: StatusError) => {
    const extra: Record<string, string> = {};
    if (e.details?.retryAfterSeconds) extra["Retry-After"] = String(e.details.retryAfterSeconds);
    res.writeHead(e.code, { "Content-Type": JSON_CT, "Cache-Control": "no-cache, private", "Audit-Id": randomUUID(), ...extra });
    res.end(JSON.stringify(e.toStatus()));
  };

  const sendObject = (res: ServerResponse, code: number, obj: Obj, out: Output, rt: ResourceType | undefined, warnings: string[]) => {
    if (out.kind === "yaml") return send(res, code, YAML.stringify(obj), "application/yaml", warnings);
    if (rt && out.kind === "table" && obj.kind !== "Status") {
      return send(res, code, toTable(rt, [obj], { resourceVersion: asStr(asObj(obj.metadata)?.resourceVersion) ?? "" }, { tableVersion: out.version }), JSON_CT, warnings);
    }
    if (rt && out.kind === "partial" && obj.kind !== "Status") {
      return send(res, code, { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata }, JSON_CT, warnings);
    }
    return send(res, code, obj, JSON_CT, warnings);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (faults.unavailable === "reset") {
      req.socket.destroy();
      return;
    }
    if (faults.unavailable === "hang") {
      hanging.add(req.socket);
      return;
    }
    try {
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      const body = req.method === "GET" || req.method === "HEAD" ? Buffer.alloc(0) : await readBody(req);
      const u = new URL(req.url ?? "/", "https://kubesim.invalid");
      const p = u.pathname.replace(/\/+$/, "") || "/";
      const user = auth.authenticate(req.headers.authorization);
      if (faults.failNext > 0) {
        faults.failNext -= 1;
        throw injected(faults.failStatus);
      }
      await route(req, res, u, p, body, user);
    } catch (e) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof StatusError) sendError(res, e);
      else {
        console.error("kubesim: internal error", e);
        sendError(res, internalError(e instanceof Error ? e.message : String(e)));
      }
    }
  }

  function injected(status: number): StatusError {
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

  async function route(req: IncomingMessage, res: ServerResponse, u: URL, p: string, bodyBuf: Buffer, user: User): Promise<void> {
    const body = bodyBuf.toString("utf8");
    const method = req.method ?? "GET";
    const segs = p.split("/").filter(Boolean);
    const nonResource = (verb: string) => {
      const a: RequestAttributes = { resourceRequest: false, verb, group: "", resource: "", subresource: "", namespace: "", name: "", path: p };
      const denied = authorize(user, a);
      if (denied) throw denied;
    };
    if (p === "/version") {
      nonResource("get");
      return send(res, 200, SERVER_VERSION);
    }
    if (p === "/healthz" || p === "/livez" || p === "/readyz") {
      nonResource("get");
      return send(res, 200, "ok", "text/plain; charset=utf-8");
    }
    if (p === "/api" || p === "/apis") {
      nonResource("get");
      const wantsAggregated = parseAccept(req.headers.accept).some((a) => a.params.as === "APIGroupDiscoveryList" && a.params.v === "v2" && a.params.g === "apidiscovery.k8s.io");
      if (wantsAggregated) return send(res, 200, aggregatedDiscovery(registry, p === "/api"), AGGREGATED_CONTENT_TYPE);
      if (p === "/api") return send(res, 200, apiVersions(`${host}:${port}`));
      return send(res, 200, apiGroupList(registry));
    }
    if (segs[0] === "openapi") {
      nonResource("get");
      if (segs[1] === "v3" && segs.length === 2) return send(res, 200, openAPIv3Root(registry));
      if (segs[1] === "v3") {
        const rest = segs.slice(2);
        const doc = rest[0] === "api" && rest.length === 2 ? openAPIv3Document(registry, "", rest[1] as string) : rest[0] === "apis" && rest.length === 3 ? openAPIv3Document(registry, rest[1] as string, rest[2] as string) : undefined;
        if (!doc) throw notFoundPath();
        res.setHeader("Etag", `"${docHash(doc)}"`);
        return send(res, 200, doc);
      }
      throw notFoundPath();
    }
    if (segs[0] === "api" && segs.length === 2) {
      nonResource("get");
      const rl = resourceList(registry, "", segs[1] as string);
      if (!rl) throw notFoundPath();
      return send(res, 200, rl);
    }
    if (segs[0] === "apis" && segs.length === 2) {
      nonResource("get");
      const g = apiGroup(registry, segs[1] as string);
      if (!g) throw notFoundPath();
      return send(res, 200, g);
    }
    if (segs[0] === "apis" && segs.length === 3) {
      nonResource("get");
      const rl = resourceList(registry, segs[1] as string, segs[2] as string);
      if (!rl) throw notFoundPath();
      return send(res, 200, rl);
    }
    const r = parseResourcePath(segs);
    if (!r) throw notFoundPath();
    const rt = registry.find(r.group, r.version, r.resource);
    if (!rt) throw notFoundPath();
    if (r.namespace !== undefined && !rt.namespaced) throw notFoundPath();
    const q = u.searchParams;
    const isWatch = r.watchPath || q.get("watch") === "true" || q.get("watch") === "1";
    let verb: string;
    switch (method) {
      case "GET":
        verb = r.name ? (isWatch ? "watch" : "get") : isWatch ? "watch" : "list";
        break;
      case "POST":
        verb = "create";
        break;
      case "PUT":
        verb = "update";
        break;
      case "PATCH":
        verb = "patch";
        break;
      case "DELETE":
        verb = r.name ? "delete" : "deletecollection";
        break;
      default:
        throw methodNotSupported(grOf(rt), method.toLowerCase());
    }
    const sub = r.subresource ?? "";
    const attrs: RequestAttributes = {
      resourceRequest: true,
      verb,
      group: rt.group,
      resource: rt.resource,
      subresource: sub,
      namespace: rt.resource === "namespaces" && rt.group === "" ? (r.name ?? "") : (r.namespace ?? ""),
      name: r.name ?? "",
      path: p,
    };
    const denied = authorize(user, attrs);
    if (denied) throw denied;
    for (const f of faults.forbidden) {
      if (f.resource !== rt.resource) continue;
      if (f.group !== undefined && f.group !== rt.group) continue;
      if (f.namespace !== undefined && f.namespace !== attrs.namespace) continue;
      throw forbiddenError(user.name, attrs);
    }
    if (sub && !["status", "scale", "finalize"].includes(sub)) throw notFoundPath();
    if (sub === "scale" && !rt.scale) throw notFoundPath();
    if (sub === "status" && !rt.status) throw notFoundPath();
    if (sub === "finalize" && rt.kind !== "Namespace") throw notFoundPath();

    const warnings: string[] = [];
    const fv = q.get("fieldValidation");
    if (fv !== null && !["Strict", "Warn", "Ignore"].includes(fv)) {
      throw badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got: ${JSON.stringify(fv)}`);
    }
    const dryRunValues = q.getAll("dryRun");
    for (const d of dryRunValues) {
      if (d !== "All") {
        throw invalid("meta.k8s.io", `${method === "POST" ? "Create" : method === "DELETE" ? "Delete" : method === "PATCH" ? "Patch" : "Update"}Options`, "", [
          { type: "NotSupported", field: "dryRun", value: dryRunValues, detail: 'supported values: "All"' },
        ]);
      }
    }
    const fieldManager = q.get("fieldManager") ?? undefined;
    if (fieldManager !== undefined && (fieldManager.length > 128 || /\p{C}/u.test(fieldManager))) {
      throw invalid("meta.k8s.io", "PatchOptions", "", [{ type: "TooLong", field: "fieldManager", value: fieldManager, detail: "must be less than 128 characters" }]);
    }
    const wo: WriteOptions = {
      fieldManager,
      userAgentManager: managerFromUserAgent(req.headers["user-agent"]),
      dryRun: dryRunValues.includes("All"),
      fieldValidation: (fv as FieldValidation | null) ?? "Warn",
      warnings,
      force: q.get("force") === "true",
    };
    const ns = r.namespace;
    const out = () => negotiate(req.headers.accept, method === "GET");
    const ct = (req.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";

    if (method === "GET") {
      const o = out();
      if (r.name && !isWatch) {
        if (sub === "scale") return sendObject(res, 200, core.getScale(rt, ns, r.name), o.kind === "table" ? { kind: "json" } : o, undefined, warnings);
        return sendObject(res, 200, core.get(rt, ns, r.name), o, rt, warnings);
      }
      const lq: ListQuery = {
        labelSelector: q.get("labelSelector") ?? undefined,
        fieldSelector: q.get("fieldSelector") ?? undefined,
        limit: q.get("limit") ? Number(q.get("limit")) : undefined,
        continueToken: q.get("continue") ?? undefined,
        resourceVersion: q.get("resourceVersion") ?? undefined,
        resourceVersionMatch: q.get("resourceVersionMatch") ?? undefined,
      };
      if (r.name) lq.fieldSelector = lq.fieldSelector ? `${lq.fieldSelector},metadata.name=${r.name}` : `metadata.name=${r.name}`;
      if (isWatch) return serveWatch(rt, ns, lq, q, o, res);
      return serveList(rt, ns, lq, o, res, q);
    }
    if (method === "POST") {
      if (r.name) throw methodNotSupported(grOf(rt), "create");
      const obj = core.create(rt, ns, parseObjectBody(bodyBuf, ct, rt.kind), wo);
      return sendObject(res, 201, obj, { kind: "json" }, rt, warnings);
    }
    if (method === "PUT") {
      if (!r.name) throw methodNotSupported(grOf(rt), "update");
      const parsed = parseObjectBody(bodyBuf, ct, sub === "scale" ? "Scale" : rt.kind);
      if (sub === "scale") return sendObject(res, 200, core.updateScale(rt, ns, r.name, parsed, wo), { kind: "json" }, undefined, warnings);
      if (sub === "finalize") return sendObject(res, 200, finalizeNamespace(rt, r.name, parsed, wo), { kind: "json" }, rt, warnings);
      const obj = core.update(rt, ns, r.name, parsed, wo, sub === "status" ? "status" : undefined);
      return sendObject(res, 200, obj, { kind: "json" }, rt, warnings);
    }
    if (method === "PATCH") {
      if (!r.name) throw methodNotSupported(grOf(rt), "patch");
      if (sub === "scale") return sendObject(res, 200, core.patchScale(rt, ns, r.name, ct, body, wo), { kind: "json" }, undefined, warnings);
      const existed = core.getStored(rt, ns, r.name) !== undefined;
      const obj = core.patch(rt, ns, r.name, ct, body, wo, sub === "status" ? "status" : undefined);
      return sendObject(res, existed ? 200 : 201, obj, { kind: "json" }, rt, warnings);
    }
    // DELETE
    let dopts: Obj = {};
    if (body.trim()) {
      const parsed = parseObjectBody(bodyBuf, ct || JSON_CT, "DeleteOptions");
      if (isObj(parsed)) dopts = parsed;
    }
    const pre = asObj(dopts.preconditions);
    const del: DeleteOptions = {
      dryRun: wo.dryRun || (Array.isArray(dopts.dryRun) && dopts.dryRun.includes("All")),
      propagationPolicy: q.get("propagationPolicy") ?? asStr(dopts.propagationPolicy) ?? (dopts.orphanDependents === true ? "Orphan" : undefined),
      preconditions: pre ? { uid: asStr(pre.uid), resourceVersion: asStr(pre.resourceVersion) } : undefined,
    };
    if (!r.name) {
      const lq: ListQuery = { labelSelector: q.get("labelSelector") ?? undefined, fieldSelector: q.get("fieldSelector") ?? undefined };
      return send(res, 200, core.deleteCollection(rt, ns, lq, del), JSON_CT, warnings);
    }
    const result = core.delete(rt, ns, r.name, del);
    return send(res, result.code, result.body, JSON_CT, warnings);
  }

  function finalizeNamespace(rt: ResourceType, name: string, body: unknown, wo: WriteOptions): Obj {
    const stored = core.getStored(rt, undefined, name);
    if (!stored) throw notFound(grOf(rt), name);
    const next = clone(stored.obj);
    const spec = asObj(asObj(body)?.spec) ?? {};
    next.spec = Array.isArray(spec.finalizers) && spec.finalizers.length > 0 ? { finalizers: spec.finalizers } : {};
    if (wo.dryRun) return served(rt, next);
    const m = asObj(next.metadata) ?? {};
    if (m.deletionTimestamp && !(Array.isArray(asObj(next.spec)?.finalizers) && (asObj(next.spec)?.finalizers as unknown[]).length > 0) && !(Array.isArray(m.finalizers) && m.finalizers.length > 0)) {
      core.removeNow(rt, undefined, name, "Background");
      return served(rt, next);
    }
    return served(rt, store.put("/namespaces", name, canonicalize(rt, next)).obj);
  }

  function serveList(rt: ResourceType, ns: string | undefined, lq: ListQuery, o: Output, res: ServerResponse, q: URLSearchParams): void {
    const result = core.list(rt, ns, lq);
    const metadata: Obj = { resourceVersion: result.rv };
    if (result.continueToken) metadata.continue = result.continueToken;
    if (result.remaining !== undefined) metadata.remainingItemCount = result.remaining;
    if (o.kind === "table") {
      const inc = q.get("includeObject");
      const tableOpts: TableOptions = { tableVersion: o.version, includeObject: inc === "None" ? "None" : inc === "Object" ? "Object" : "Metadata" };
      return send(res, 200, toTable(rt, result.items.map((i) => i.obj), metadata, tableOpts));
    }
    if (o.kind === "partial") {
      return send(res, 200, {
        kind: "PartialObjectMetadataList",
        apiVersion: "meta.k8s.io/v1",
        metadata,
        items: result.items.map((i) => ({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: i.obj.metadata })),
      });
    }
    const head = JSON.stringify({ kind: rt.listKind, apiVersion: apiVersionOf(rt), metadata });
    const items = result.items.map((i) => i.json()).join(",");
    const text = `${head.slice(0, -1)},"items":[${items}]}`;
    if (o.kind === "yaml") return send(res, 200, YAML.stringify(JSON.parse(text)), "application/yaml");
    send(res, 200, text);
  }

  function serveWatch(rt: ResourceType, ns: string | undefined, lq: ListQuery, q: URLSearchParams, o: Output, res: ServerResponse): void {
    const labelSel = parseLabelSelector(lq.labelSelector);
    const fieldSel = parseFieldSelector(lq.fieldSelector, { extra: rt.extraFieldSelectors, customConversion: !rt.builtin || ["Namespace", "Secret", "Service"].includes(rt.kind) });
    const rv = lq.resourceVersion;
    if (rv && rv !== "0") {
      const n = Number(rv);
      if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: ${rv}`);
      if (n > store.rv) throw timeoutError(`Too large resource version: ${n}, current: ${store.rv}`, 1);
    }
    const sendInitialEvents = q.get("sendInitialEvents") === "true";
    if (sendInitialEvents && (q.get("resourceVersionMatch") !== "NotOlderThan" || q.get("allowWatchBookmarks") !== "true")) {
      throw invalid("meta.k8s.io", "ListOptions", "", [
        { type: "Forbidden", field: "sendInitialEvents", detail: "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled" },
      ]);
    }
    const ts = q.get("timeoutSeconds");
    const timeoutMs = ts ? Math.max(0, Number(ts)) * 1000 : (1800 + Math.random() * 1800) * 1000;
    const inc = q.get("includeObject");
    const transform = (obj: Obj, first: boolean): Obj => {
      if (o.kind === "table") {
        return toTable(rt, [obj], { resourceVersion: asStr(asObj(obj.metadata)?.resourceVersion) ?? "" }, {
          tableVersion: o.version,
          noHeaders: !first,
          includeObject: inc === "None" ? "None" : inc === "Object" ? "Object" : "Metadata",
        });
      }
      if (o.kind === "partial") return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata };
      return obj;
    };
    startWatch(
      core,
      {
        rt,
        namespace: ns,
        labelSel,
        fieldSel,
        resourceVersion: rv,
        sendInitialEvents,
        allowBookmarks: q.get("allowWatchBookmarks") === "true",
        timeoutMs,
        bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
        transform,
      },
      res,
      watches,
      () => undefined,
    );
  }

  // ---- admin endpoint ----
  let adminServer: http.Server | undefined;
  let adminUrl: string | null = null;
  const faultApi: KubeSim["faults"] = {
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

  if (opts.adminPort !== false) {
    adminServer = http.createServer((req, res) => {
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
      adminServer?.once("error", reject);
      adminServer?.listen(typeof opts.adminPort === "number" ? opts.adminPort : 0, "127.0.0.1", () => resolve());
    });
    adminUrl = `http://127.0.0.1:${(adminServer.address() as { port: number }).port}`;
  }

  // ---- kubeconfig ----
  let tempDir: string | undefined;
  let kubeconfigPath = opts.kubeconfigPath;
  if (!kubeconfigPath) {
    tempDir = mkdtempSync(path.join(os.tmpdir(), "kubesim-"));
    kubeconfigPath = path.join(tempDir, "kubeconfig");
  }
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: clusterName, cluster: { server: url, "certificate-authority-data": Buffer.from(tls.caPem).toString("base64") } }],
    users: [
      { name: `${clusterName}-admin`, user: { token: tokens.admin } },
      { name: `${clusterName}-readonly`, user: { token: tokens.readonly } },
    ],
    contexts: [
      { name: clusterName, context: { cluster: clusterName, user: `${clusterName}-admin`, namespace: "default" } },
      { name: `${clusterName}-readonly`, context: { cluster: clusterName, user: `${clusterName}-readonly`, namespace: "default" } },
    ],
    "current-context": clusterName,
    preferences: {},
  };
  await fs.mkdir(path.dirname(kubeconfigPath), { recursive: true });
  await fs.writeFile(kubeconfigPath, YAML.stringify(kubeconfig), { mode: 0o600 });

  const api: KubeSim = {
    url,
    caPem: tls.caPem,
    kubeconfigPath,
    tokens,
    adminUrl,
    addToken(token, scope) {
      auth.add(token, scope);
    },
    seed(objects, o = {}) {
      const manager = o.manager ?? "kubesim";
      const nsRT = registry.find("", "v1", "namespaces") as ResourceType;
      for (const raw of objects) {
        const obj = clone(raw) as Obj;
        const apiVersion = asStr(obj.apiVersion) ?? "";
        const kind = asStr(obj.kind) ?? "";
        const rt = registry.byKind(apiVersion, kind);
        if (!rt) throw new Error(`kubesim.seed: no kind ${kind} is served in ${apiVersion}`);
        const m = asObj(obj.metadata) ?? {};
        obj.metadata = m;
        if (rt.namespaced) {
          if (!m.namespace) m.namespace = "default";
          const nsName = String(m.namespace);
          if (!store.get("/namespaces", nsName)) core.applyAs(nsRT, { apiVersion: "v1", kind: "Namespace", metadata: { name: nsName } }, manager);
        } else delete m.namespace;
        const status = obj.status;
        core.applyAs(rt, obj, manager);
        if (status !== undefined && rt.status) {
          core.applyAs(rt, { apiVersion, kind, metadata: { name: m.name, namespace: m.namespace }, status }, manager, true, "status");
        }
      }
    },
    objects() {
      return store.all().map(({ gr, stored }) => {
        const [group, resource] = [gr.slice(0, gr.indexOf("/")), gr.slice(gr.indexOf("/") + 1)];
        const rt = registry.storageType(group, resource);
        return clone(rt ? served(rt, stored.obj) : stored.obj);
      });
    },
    faults: faultApi,
    async stop() {
      if (stopping) return;
      stopping = true;
      controllers.stop();
      for (const w of [...watches]) w.close("end");
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = undefined;
      if (opts.state) await saveNow();
      for (const s of hanging) s.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      if (adminServer) {
        const a = adminServer;
        await new Promise<void>((resolve) => {
          a.close(() => resolve());
          a.closeAllConnections();
        });
      }
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
  return api;
}
