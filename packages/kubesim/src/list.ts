// Lists as kube-apiserver serves them: label and field selectors, pagination
// with continue tokens pinned to one resourceVersion (410 once the history
// window has moved on), and the resourceVersion/resourceVersionMatch rules.
import type { ApiCore } from "./apiserver";
import { badRequest, expired, timeoutError } from "./errors";
import { asObj, type Obj } from "./json";
import { listItemJson, served } from "./objects";
import type { ResourceType } from "./registry";
import { exactName, fieldsMatch, labelsMatch, parseFieldSelector, parseLabelSelector } from "./selectors";
import { lowerBound, type StoredObject } from "./store";
import { grKey } from "./write-options";

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  rv: string;
  continueToken?: string;
  remaining?: number;
  /** Items as served, plus a lazily cached list-item JSON. */
  items: Array<{ obj: Obj; json: () => string }>;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start })).toString("base64url");
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const raw = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    const o = asObj(raw);
    if (!o || o.v !== "meta.k8s.io/v1" || typeof o.rv !== "number" || typeof o.start !== "string") throw new Error("bad");
    return { rv: o.rv, start: o.start };
  } catch {
    throw badRequest("continue key is not valid: illegal base64 data at input byte 0");
  }
}

export function listObjects(core: ApiCore, rt: ResourceType, namespace: string | undefined, q: ListQuery): ListResult {
  const labelSel = parseLabelSelector(q.labelSelector);
  const fieldSel = parseFieldSelector(q.fieldSelector, { extra: rt.extraFieldSelectors, customConversion: !rt.builtin || ["Namespace", "Secret", "Service"].includes(rt.kind) });
  const g = grKey(rt);
  const current = core.store.rv;
  let snapshotRV = current;
  let start = "";
  let historical: Map<string, Obj> | undefined;
  let limit = q.limit && q.limit > 0 ? q.limit : 0;
  const rvParam = q.resourceVersion ?? "";
  if (q.continueToken) {
    if (rvParam !== "") throw badRequest("specifying resource version is not allowed when using continue");
    const tok = decodeContinue(q.continueToken);
    start = tok.start;
    if (tok.rv > 0) {
      historical = core.store.snapshot(g, tok.rv);
      if (!historical) {
        throw expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
          encodeContinue(-1, start),
        );
      }
      snapshotRV = tok.rv;
    }
  } else if (rvParam === "0") {
    // Served from the watch cache, which ignores limit in this version.
    limit = 0;
  } else if (rvParam !== "") {
    const n = Number(rvParam);
    if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: ${rvParam}`);
    if (n > current) throw timeoutError(`Too large resource version: ${n}, current: ${current}`, 1);
    const exact = q.resourceVersionMatch === "Exact" || (q.resourceVersionMatch === undefined && limit > 0);
    if (exact) {
      historical = core.store.snapshot(g, n);
      if (!historical) throw expired("The resourceVersion for the provided list is too old.");
      snapshotRV = n;
    } else {
      limit = q.resourceVersionMatch === "NotOlderThan" ? limit : 0;
    }
  }
  const name = exactName(fieldSel);
  let keys: string[];
  if (historical) {
    const prefix = rt.namespaced && namespace ? `${namespace}/` : "";
    keys = [...historical.keys()].filter((k) => k.startsWith(prefix)).sort();
  } else {
    keys = core.store.keys(g, rt.namespaced ? namespace : undefined);
  }
  if (name !== undefined && !historical) {
    const k = core.keyFor(rt, namespace, name);
    keys = rt.namespaced && !namespace ? keys.filter((x) => x.endsWith(`/${name}`)) : keys.includes(k) ? [k] : [];
  }
  const items: ListResult["items"] = [];
  let i = start ? lowerBound(keys, start) : 0;
  let lastKey: string | undefined;
  for (; i < keys.length; i++) {
    if (limit > 0 && items.length >= limit) break;
    const key = keys[i] as string;
    let obj: Obj | undefined;
    let stored: StoredObject | undefined;
    if (historical) obj = historical.get(key);
    else {
      stored = core.store.get(g, key);
      obj = stored?.obj;
    }
    if (!obj) continue;
    lastKey = key;
    if (!labelSel.empty && !labelsMatch(labelSel, asObj(obj.metadata)?.labels)) continue;
    if (!fieldSel.empty && !fieldsMatch(fieldSel, obj)) continue;
    const o = obj;
    const st = stored;
    items.push({
      obj: served(rt, o),
      json: () => {
        if (st && st.obj === o && rt.version === rt.storageVersion) {
          st.itemJson ??= listItemJson(rt, o);
          return st.itemJson;
        }
        return listItemJson(rt, o);
      },
    });
  }
  const res: ListResult = { rv: String(snapshotRV), items };
  if (limit > 0 && i < keys.length && lastKey !== undefined) {
    res.continueToken = encodeContinue(snapshotRV, `${lastKey}\u0000`);
    if (labelSel.empty && fieldSel.empty) res.remaining = keys.length - i;
  }
  return res;
}
