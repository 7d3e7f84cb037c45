// The live side of a run: kinds listed page by page, two at a time (the API
// server prepares the next page while this process parses the last). Lists
// may start before the run knows which kinds it needs — the kinds it needed
// last time, while Git is being fetched — so their pages wait until the run
// says which kinds it wants and how to take objects in; kinds it turns out
// not to want are dropped, unread, and kinds it wants but nobody started are
// listed then.
import type { RunProgress } from "@/lib/domain/types";
import type { ClusterClient } from "@/lib/kube/client";
import type { ApiResource } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import { listPaged } from "@/lib/kube/list";

type Items = Array<Record<string, unknown>>;

export interface LiveSink {
  /** Takes a page in; pushes the keys it kept onto `seen`. */
  ingest(resource: ApiResource, items: Items, seen: string[]): void;
  /** Forgets keys taken in earlier (a list that starts over after a 410 delivers them again). */
  forget(keys: readonly string[]): void;
}

export interface ListOutcome {
  /** Kinds the credential may not list (the run goes on without them). */
  forbidden: Array<{ resource: ApiResource; error: KubeError }>;
  /** The first kind that failed otherwise: the run fails. */
  failure?: { resource: ApiResource; error: unknown };
}

const CONCURRENCY = 2;
const PAGE_SIZE = 500;

/** One namespace's list of one kind. */
interface Scope {
  pages: Items[];
  seen: string[];
}

interface KindList {
  resource: ApiResource;
  scopes: Scope[];
  done: Promise<void>;
  finished: boolean;
  dropped: boolean;
  error?: unknown;
  errorSeq?: number;
}

class Stopped extends Error {}

const forbidden = (e: unknown): e is KubeError => e instanceof KubeError && e.category === "forbidden";

/** Two ApiResources are listed the same way when these agree (discovery may be asked again in between). */
function identity(r: ApiResource): string {
  return JSON.stringify([r.group, r.version, r.kind, r.resource, r.namespaced]);
}

export class LiveLists {
  private readonly lists = new Map<string, KindList>();
  private wanted: Set<KindList> | null = null;
  private sink: LiveSink | null = null;
  private failed = false;
  private abandoned = false;
  private onFailure: (() => void) | null = null;
  private errors = 0;
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly progress: RunProgress,
    private readonly report: () => void,
    readonly scopes: ReadonlyArray<string | undefined>,
  ) {}

  /** Starts listing a kind (once; a kind already started is left as it is). */
  start(client: ClusterClient, resource: ApiResource): KindList {
    const id = identity(resource);
    const existing = this.lists.get(id);
    if (existing) return existing;
    const list: KindList = { resource, scopes: [], done: Promise.resolve(), finished: false, dropped: false };
    this.lists.set(id, list);
    list.done = this.run(client, list);
    return list;
  }

  /** The run failed elsewhere: every list stops at its next page, and nothing waits for them. */
  abandon(): void {
    this.abandoned = true;
  }

  /**
   * The kinds the run wants: buffered pages of those are taken in, other
   * lists dropped, missing kinds started. Resolves when every wanted kind is
   * read, or as soon as one fails (other than forbidden).
   */
  async settle(client: ClusterClient, wanted: readonly ApiResource[], sink: LiveSink, kindsTotal: number): Promise<ListOutcome> {
    const ids = new Set(wanted.map(identity));
    for (const [id, list] of this.lists) {
      if (ids.has(id)) continue;
      list.dropped = true;
      list.scopes.length = 0;
    }
    const chosen = wanted.map((r) => this.start(client, r));
    this.wanted = new Set(chosen);
    this.sink = sink;
    for (const list of chosen) {
      for (const scope of list.scopes) {
        for (const page of scope.pages) sink.ingest(list.resource, page, scope.seen);
        scope.pages.length = 0;
      }
    }
    this.progress.kindsTotal = kindsTotal;
    this.progress.kindsDone = kindsTotal - chosen.length + chosen.filter((l) => l.finished).length;
    this.report();
    const failed = new Promise<void>((resolve) => {
      this.onFailure = resolve;
    });
    if (chosen.some((l) => l.error !== undefined && !forbidden(l.error))) this.fail();
    await Promise.race([Promise.all(chosen.map((l) => l.done)), failed]);

    const outcome: ListOutcome = { forbidden: [] };
    let first: KindList | undefined;
    for (const l of chosen) {
      if (l.error === undefined) continue;
      if (forbidden(l.error)) outcome.forbidden.push({ resource: l.resource, error: l.error });
      else if (!first || (l.errorSeq ?? 0) < (first.errorSeq ?? 0)) first = l;
    }
    if (first) outcome.failure = { resource: first.resource, error: first.error };
    return outcome;
  }

  private fail(): void {
    this.failed = true;
    this.onFailure?.();
  }

  private stopped(list: KindList): boolean {
    return this.abandoned || this.failed || list.dropped;
  }

  private async run(client: ClusterClient, list: KindList): Promise<void> {
    await this.acquire();
    try {
      for (const namespace of list.resource.namespaced ? this.scopes : [undefined]) {
        if (this.stopped(list)) throw new Stopped();
        const scope: Scope = { pages: [], seen: [] };
        list.scopes.push(scope);
        const onRestart = () => {
          scope.pages.length = 0;
          this.sink?.forget(scope.seen);
          scope.seen.length = 0;
        };
        await listPaged(client, list.resource, { namespace, pageSize: PAGE_SIZE, onRestart }, (items) => {
          if (this.stopped(list)) throw new Stopped();
          this.progress.objectsRead += items.length;
          if (this.sink && this.wanted?.has(list)) this.sink.ingest(list.resource, items, scope.seen);
          else scope.pages.push(items);
        });
      }
      list.finished = true;
      if (!this.wanted || this.wanted.has(list)) {
        this.progress.kindsDone++;
        this.report();
      }
    } catch (e) {
      if (!(e instanceof Stopped) && !list.dropped) {
        list.error = e;
        list.errorSeq = ++this.errors;
        if (this.wanted?.has(list) && !forbidden(e)) this.fail();
      }
    } finally {
      this.release();
    }
  }

  private async acquire(): Promise<void> {
    if (this.running < CONCURRENCY) {
      this.running++;
      return;
    }
    // The slot is handed over by release(), still counted.
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }
}
