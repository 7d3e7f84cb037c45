// The --state file: objects, resourceVersion and tokens loaded at start and
// written back (debounced, serialised write-then-rename) after changes.
import fs from "node:fs/promises";
import path from "node:path";
import type { ApiCore } from "./apiserver";
import { asObj, asStr, isObj } from "./json";
import { typesFromCRD, type Registry } from "./registry";
import { objectKey, type Store } from "./store";

export interface Tokens {
  admin: string;
  readonly: string;
}

/** Loads a state file into an empty store; undefined when there is none yet. */
export async function loadState(file: string, registry: Registry, store: Store, core: ApiCore): Promise<{ tokens?: Tokens } | undefined> {
  let tokens: Tokens | undefined;
  try {
    const raw = JSON.parse(await fs.readFile(file, "utf8")) as unknown;
    const st = asObj(raw);
    if (!st || !Array.isArray(st.objects)) return undefined;
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
    return { tokens };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    return undefined;
  }
}

export interface StatePersister {
  /** Writes now (after any write in progress). */
  saveNow(): Promise<void>;
  /** Cancels the pending debounced save and stops scheduling new ones. */
  stop(): void;
}

/** Saves the store to file 200 ms after changes. */
export function persistState(file: string, store: Store, tokens: Tokens): StatePersister {
  let saveTimer: NodeJS.Timeout | undefined;
  let stopped = false;
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
    saving = saving.catch(() => undefined).then(async () => {
      const tmp = `${file}.tmp-${process.pid}-${++saveSeq}`;
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(tmp, snapshotState());
      await fs.rename(tmp, file);
    });
    return saving;
  };
  store.onChange = () => {
    if (saveTimer || stopped) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      saveNow().catch((e: unknown) => console.error("kubesim: could not persist state", e));
    }, 200);
    saveTimer.unref?.();
  };
  return {
    saveNow,
    stop() {
      stopped = true;
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = undefined;
    },
  };
}
