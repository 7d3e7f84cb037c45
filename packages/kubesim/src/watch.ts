// Watch streams: newline-delimited JSON events over a chunked 200 response,
// with initial events, replay from a resourceVersion, bookmarks, timeouts and
// the 410 Expired ERROR event when the history no longer reaches back.
import type { ServerResponse } from "node:http";
import type { ApiCore } from "./apiserver";
import { expired, type StatusError } from "./errors";
import { asObj, type Obj } from "./json";
import { served } from "./objects";
import type { ResourceType } from "./registry";
import { fieldsMatch, labelsMatch, type FieldSelector, type LabelSelector } from "./selectors";
import type { StoreEvent } from "./store";

export interface WatchParams {
  rt: ResourceType;
  namespace?: string;
  labelSel: LabelSelector;
  fieldSel: FieldSelector;
  resourceVersion?: string;
  sendInitialEvents: boolean;
  allowBookmarks: boolean;
  timeoutMs: number;
  bookmarkIntervalMs: number;
  /** Converts each event object for the response (Table, PartialObjectMetadata, or as is). */
  transform: (obj: Obj, first: boolean) => Obj;
}

export interface ActiveWatch {
  close(mode: "end" | "reset"): void;
}

export function startWatch(core: ApiCore, p: WatchParams, res: ServerResponse, registry: Set<ActiveWatch>, onEnd: () => void): void {
  const g = `${p.rt.group}/${p.rt.resource}`;
  const store = core.store;
  let first = true;
  let closed = false;
  const matches = (o: Obj | undefined): boolean => {
    if (!o) return false;
    const m = asObj(o.metadata) ?? {};
    if (p.rt.namespaced && p.namespace && m.namespace !== p.namespace) return false;
    if (!p.labelSel.empty && !labelsMatch(p.labelSel, m.labels)) return false;
    if (!p.fieldSel.empty && !fieldsMatch(p.fieldSel, o)) return false;
    return true;
  };
  const write = (type: string, obj: Obj) => {
    if (closed) return;
    const out = type === "ERROR" || type === "BOOKMARK" ? obj : p.transform(served(p.rt, obj), first);
    if (type !== "ERROR" && type !== "BOOKMARK") first = false;
    res.write(`${JSON.stringify({ type, object: out })}\n`);
  };
  const bookmark = (annotations?: Obj) => {
    const metadata: Obj = { resourceVersion: String(store.rv) };
    if (annotations) metadata.annotations = annotations;
    const obj: Obj = p.rt.builtin
      ? { kind: p.rt.kind, apiVersion: p.rt.group ? `${p.rt.group}/${p.rt.version}` : p.rt.version, metadata }
      : { apiVersion: `${p.rt.group}/${p.rt.version}`, kind: p.rt.kind, metadata };
    write("BOOKMARK", obj);
  };
  const deliver = (e: StoreEvent) => {
    const prevMatch = e.type === "ADDED" ? false : matches(e.prev);
    const nowMatch = e.type === "DELETED" ? false : matches(e.obj);
    if (e.type === "DELETED") {
      if (prevMatch) write("DELETED", e.obj);
      return;
    }
    if (nowMatch && prevMatch) write("MODIFIED", e.obj);
    else if (nowMatch) write("ADDED", e.obj);
    else if (prevMatch && e.prev) {
      // The cacher sends the previous object content with the event's resourceVersion.
      const prev = { ...e.prev, metadata: { ...(asObj(e.prev.metadata) ?? {}), resourceVersion: String(e.rv) } };
      write("DELETED", prev);
    }
  };

  const rv = p.resourceVersion ?? "";
  let replay: StoreEvent[] = [];
  let initial: Obj[] = [];
  let tooOld: StatusError | undefined;
  if (p.sendInitialEvents || rv === "" || rv === "0") {
    for (const key of store.keys(g, p.rt.namespaced ? p.namespace : undefined)) {
      const s = store.get(g, key);
      if (s && matches(s.obj)) initial.push(s.obj);
    }
  } else {
    const n = Number(rv);
    const events = store.eventsSince(g, n);
    if (!events) tooOld = expired(`too old resource version: ${n} (${store.compactedRV(g)})`);
    else replay = events;
  }

  res.writeHead(200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Transfer-Encoding": "chunked",
  });
  res.flushHeaders();

  let unsubscribe: () => void = () => undefined;
  const timers: NodeJS.Timeout[] = [];
  const finish = (mode: "end" | "reset") => {
    if (closed) return;
    closed = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    registry.delete(active);
    if (mode === "reset") res.destroy();
    else res.end();
    onEnd();
  };
  const active: ActiveWatch = { close: finish };
  registry.add(active);
  res.on("close", () => finish("end"));

  if (tooOld) {
    write("ERROR", tooOld.toStatus());
    finish("end");
    return;
  }
  for (const o of initial) write("ADDED", o);
  initial = [];
  if (p.sendInitialEvents && p.allowBookmarks) bookmark({ "k8s.io/initial-events-end": "true" });
  for (const e of replay) deliver(e);
  replay = [];
  unsubscribe = store.subscribe({ gr: g, onEvent: deliver });
  if (p.allowBookmarks) timers.push(setInterval(() => bookmark(), p.bookmarkIntervalMs));
  // The watch cache also sends one 2 s before the watch times out, so a client resumes from close to now.
  if (p.allowBookmarks && p.timeoutMs > 2000) timers.push(setTimeout(() => bookmark(), p.timeoutMs - 2000));
  timers.push(setTimeout(() => finish("end"), p.timeoutMs));
}
