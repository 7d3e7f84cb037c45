// Requests for /api/v1/... and /apis/GROUP/VERSION/...: path parsing,
// authorization (tokens and injected forbids), the query options of writes,
// and dispatch to ApiCore for get, list, watch, create, update, patch,
// delete, deletecollection and the status/scale/finalize subresources.
import type { IncomingMessage, ServerResponse } from "node:http";
import YAML from "yaml";
import type { ApiCore } from "./apiserver";
import { authorize, forbiddenError, type RequestAttributes, type User } from "./auth";
import type { FaultState } from "./faults";
import { badRequest, invalid, methodNotSupported, notFound, StatusError, timeoutError } from "./errors";
import { JSON_CT, managerFromUserAgent, negotiate, parseObjectBody, send, sendObject, type Output } from "./http-io";
import { asObj, asStr, clone, isObj, type Obj } from "./json";
import type { ListQuery } from "./list";
import { canonicalize, served } from "./objects";
import { apiVersionOf, type Registry, type ResourceType } from "./registry";
import { parseFieldSelector, parseLabelSelector } from "./selectors";
import type { Store } from "./store";
import { toTable, type TableOptions } from "./table";
import { startWatch, type ActiveWatch } from "./watch";
import { gr as grOf, type DeleteOptions, type FieldValidation, type WriteOptions } from "./write-options";

/** What the resource handlers need from the running server. */
export interface ResourceContext {
  core: ApiCore;
  registry: Registry;
  store: Store;
  watches: Set<ActiveWatch>;
  /** Injected 403s (faults.forbidden), checked after the token's own authorization. */
  faults: Pick<FaultState, "forbidden">;
  bookmarkIntervalMs: number;
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

export function notFoundPath(): StatusError {
  return new StatusError(404, "NotFound", "the server could not find the requested resource", {});
}

export function serveResource(ctx: ResourceContext, req: IncomingMessage, res: ServerResponse, u: URL, p: string, segs: string[], bodyBuf: Buffer, user: User): void {
  const { core, registry } = ctx;
  const body = bodyBuf.toString("utf8");
  const method = req.method ?? "GET";
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
  for (const f of ctx.faults.forbidden) {
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
    if (isWatch) return serveWatch(ctx, rt, ns, lq, q, o, res);
    return serveList(ctx, rt, ns, lq, o, res, q);
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
    if (sub === "finalize") return sendObject(res, 200, finalizeNamespace(ctx, rt, r.name, parsed, wo), { kind: "json" }, rt, warnings);
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

function finalizeNamespace(ctx: ResourceContext, rt: ResourceType, name: string, body: unknown, wo: WriteOptions): Obj {
  const stored = ctx.core.getStored(rt, undefined, name);
  if (!stored) throw notFound(grOf(rt), name);
  const next = clone(stored.obj);
  const spec = asObj(asObj(body)?.spec) ?? {};
  next.spec = Array.isArray(spec.finalizers) && spec.finalizers.length > 0 ? { finalizers: spec.finalizers } : {};
  if (wo.dryRun) return served(rt, next);
  const m = asObj(next.metadata) ?? {};
  if (m.deletionTimestamp && !(Array.isArray(asObj(next.spec)?.finalizers) && (asObj(next.spec)?.finalizers as unknown[]).length > 0) && !(Array.isArray(m.finalizers) && m.finalizers.length > 0)) {
    ctx.core.removeNow(rt, undefined, name, "Background");
    return served(rt, next);
  }
  return served(rt, ctx.store.put("/namespaces", name, canonicalize(rt, next)).obj);
}

function serveList(ctx: ResourceContext, rt: ResourceType, ns: string | undefined, lq: ListQuery, o: Output, res: ServerResponse, q: URLSearchParams): void {
  const result = ctx.core.list(rt, ns, lq);
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

function serveWatch(ctx: ResourceContext, rt: ResourceType, ns: string | undefined, lq: ListQuery, q: URLSearchParams, o: Output, res: ServerResponse): void {
  const labelSel = parseLabelSelector(lq.labelSelector);
  const fieldSel = parseFieldSelector(lq.fieldSelector, { extra: rt.extraFieldSelectors, customConversion: !rt.builtin || ["Namespace", "Secret", "Service"].includes(rt.kind) });
  const rv = lq.resourceVersion;
  if (rv && rv !== "0") {
    const n = Number(rv);
    if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: ${rv}`);
    if (n > ctx.store.rv) throw timeoutError(`Too large resource version: ${n}, current: ${ctx.store.rv}`, 1);
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
    ctx.core,
    {
      rt,
      namespace: ns,
      labelSel,
      fieldSel,
      resourceVersion: rv,
      sendInitialEvents,
      allowBookmarks: q.get("allowWatchBookmarks") === "true",
      timeoutMs,
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      transform,
    },
    res,
    ctx.watches,
    () => undefined,
  );
}
