// Which application each key of a run belongs to: the owners of the merged
// render (kept across runs with the render, 100,000 entries in a large
// environment) beneath this run's own additions (live objects a controller or
// label tracks). Copying the rendered owners into a new map every run cost a
// watch-triggered run that changed a hundred objects as much as a cold one.

export class RunOwners {
  private readonly tracked: Map<string, string>;

  /** `tracked`: the additions a run this one continues made (live-delta.ts), copied. */
  constructor(
    private readonly rendered: ReadonlyMap<string, string>,
    tracked?: ReadonlyMap<string, string>,
  ) {
    this.tracked = new Map(tracked);
  }

  /** The owners this run added, for a run that continues from it. */
  additions(): ReadonlyMap<string, string> {
    return this.tracked;
  }

  get(key: string): string | undefined {
    return this.tracked.get(key) ?? this.rendered.get(key);
  }

  has(key: string): boolean {
    return this.tracked.has(key) || this.rendered.has(key);
  }

  /** A tracked live object's owner. */
  set(key: string, applicationId: string): void {
    this.tracked.set(key, applicationId);
  }

  /** Drops an owner this run added (a list that starts over delivers its object again); the render's stay. */
  forget(key: string): void {
    this.tracked.delete(key);
  }
}
