// Which environments are judged application by application rather than as a
// whole: those whose applications have sources of their own.

/**
 * An environment configured with `discover:` or an `applications:` list (its
 * stored spec, driftwatch.yaml's entry): each application has its own
 * source(s), approved and applied revisions and controller, and the
 * environment row's own approved/applied/controller are only its first
 * application's. A `source:` environment is one application and is judged as
 * the environment, as before applications existed.
 */
export function judgedPerApplication(spec: unknown): boolean {
  if (typeof spec !== "object" || spec === null) return false;
  const s = spec as { discover?: unknown; applications?: unknown };
  return (s.discover !== undefined && s.discover !== null) || Array.isArray(s.applications);
}
