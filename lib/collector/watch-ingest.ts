// What a watch-triggered run made of each cached live object, kept for the
// next one. A run takes every live object in (Secret values hashed, strings
// holding Secret-sourced values masked); from an informer cache nearly all of
// them are the very objects the last run took in, so their result is reused.
//
// Keyed by the cached object itself: client-node's informer stores a new
// object whenever the resourceVersion under a namespace/name moves (a watch
// event, or a relist that finds it changed) and keeps the one it has
// otherwise, so the object stands for name + resourceVersion (a deleted and
// recreated object is a new one): one seen before is unchanged since. The entry
// also records what the result depended on besides the object (the owning
// application's Secret-sourced values and masked paths, the instance key);
// when that moved, the object is taken in again. Entries go with their objects
// when the informer drops them (a WeakMap): nothing here needs invalidating.
import { objectKey, type KubeObject } from "@/lib/drift";

const ingested = new WeakMap<object, { inputs: string; object: KubeObject }>();

/**
 * `item` as a run takes it in: computed by `ingest` unless this object was
 * taken in before with the same `inputs` (a string naming everything else the
 * result depends on).
 */
export function ingestedOnce(item: object, inputs: string, ingest: () => KubeObject): KubeObject {
  const hit = ingested.get(item);
  if (hit && hit.inputs === inputs) return hit.object;
  const object = ingest();
  ingested.set(item, { inputs, object });
  return object;
}

const keys = new WeakMap<object, string>();

/** A cached object's key, computed once per object. No closure per call: a run makes 100,000 of them. */
export function keyOnce(item: KubeObject): string {
  let hit = keys.get(item);
  if (hit === undefined) keys.set(item, (hit = objectKey(item)));
  return hit;
}
