// Ancestry over the commits the collector stored (Revision rows with their
// parents), so "is commit X live?" needs no Git mirror. Pure and in memory:
// a repository of tens of thousands of commits is a few megabytes of shas.

export interface CommitNode {
  sha: string;
  parents: string[];
}

export class CommitGraph {
  private readonly parentsOf = new Map<string, string[]>();
  private readonly ancestorCache = new Map<string, ReadonlySet<string>>();

  constructor(nodes: Iterable<CommitNode>) {
    for (const n of nodes) this.parentsOf.set(n.sha, n.parents);
  }

  get size(): number {
    return this.parentsOf.size;
  }

  has(sha: string): boolean {
    return this.parentsOf.has(sha);
  }

  parents(sha: string): string[] {
    return this.parentsOf.get(sha) ?? [];
  }

  /**
   * Every commit reachable from `sha`, itself included. A parent missing from
   * the store (history older than what was ingested) ends that path: ancestry
   * is then answered for what is known, never guessed.
   */
  ancestors(sha: string): ReadonlySet<string> {
    const cached = this.ancestorCache.get(sha);
    if (cached) return cached;
    const seen = new Set<string>([sha]);
    const stack = [sha];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      for (const p of this.parentsOf.get(cur) ?? []) {
        if (seen.has(p)) continue;
        const known = this.ancestorCache.get(p);
        if (known) {
          for (const a of known) seen.add(a);
          continue;
        }
        seen.add(p);
        stack.push(p);
      }
    }
    this.ancestorCache.set(sha, seen);
    return seen;
  }

  /** True when `container` is `commit` or a descendant of it: the container's tree includes that commit's change. */
  contains(container: string, commit: string): boolean {
    if (container === commit) return true;
    if (!this.parentsOf.has(container)) return false;
    return this.ancestors(container).has(commit);
  }

  /** Commits reachable from `to` but not from `from` (what `git log from..to` lists), newest first by graph order. */
  range(from: string, to: string): string[] {
    const exclude = this.ancestors(from);
    const out: string[] = [];
    const seen = new Set<string>();
    const stack = [to];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if (seen.has(cur) || exclude.has(cur)) continue;
      seen.add(cur);
      out.push(cur);
      for (const p of this.parentsOf.get(cur) ?? []) stack.push(p);
    }
    return out;
  }

  /** Full shas starting with `prefix` (lower-case hex). */
  resolve(prefix: string): string[] {
    const p = prefix.toLowerCase();
    if (this.parentsOf.has(p)) return [p];
    const out: string[] = [];
    for (const sha of this.parentsOf.keys()) if (sha.startsWith(p)) out.push(sha);
    return out;
  }
}
