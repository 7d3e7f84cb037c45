// Sign-in throttling, kept in memory per process: counters reset when the
// process restarts, and several web replicas each allow the limit. That is
// enough to make password guessing slow (a few tries per quarter hour) without
// a table; a shared limit would need one.

export interface LimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

interface Rule {
  max: number;
  windowMs: number;
}

export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly rule: Rule, private readonly maxKeys = 10_000) {}

  check(key: string, now: number = Date.now()): LimitDecision {
    const recent = this.recent(key, now);
    if (recent.length < this.rule.max) return { allowed: true, retryAfterSeconds: 0 };
    const oldest = recent[recent.length - this.rule.max] ?? now;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.rule.windowMs - now) / 1000)) };
  }

  fail(key: string, now: number = Date.now()): void {
    const recent = this.recent(key, now);
    recent.push(now);
    this.failures.set(key, recent);
    if (this.failures.size > this.maxKeys) this.prune(now);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.rule.windowMs);
  }

  private prune(now: number): void {
    for (const [key, times] of this.failures) {
      if (!times.some((t) => t > now - this.rule.windowMs)) this.failures.delete(key);
    }
    // Still too many distinct keys (a spray): forget the oldest half rather than grow without bound.
    if (this.failures.size > this.maxKeys) {
      const keys = [...this.failures.keys()].slice(0, Math.floor(this.failures.size / 2));
      for (const k of keys) this.failures.delete(k);
    }
  }
}

const WINDOW = 15 * 60_000;

/**
 * Two limits: per client address and username (a guesser at one account), and
 * per username alone with a higher ceiling (a guesser spreading over addresses).
 */
export class SignInLimiter {
  readonly perClient = new FailureLimiter({ max: 5, windowMs: WINDOW });
  readonly perUser = new FailureLimiter({ max: 25, windowMs: WINDOW });

  check(ip: string, username: string, now: number = Date.now()): LimitDecision {
    const a = this.perClient.check(`${ip}|${username.toLowerCase()}`, now);
    const b = this.perUser.check(username.toLowerCase(), now);
    return a.allowed && b.allowed ? a : { allowed: false, retryAfterSeconds: Math.max(a.retryAfterSeconds, b.retryAfterSeconds) };
  }

  fail(ip: string, username: string, now: number = Date.now()): void {
    this.perClient.fail(`${ip}|${username.toLowerCase()}`, now);
    this.perUser.fail(username.toLowerCase(), now);
  }

  succeed(ip: string, username: string): void {
    this.perClient.reset(`${ip}|${username.toLowerCase()}`);
  }
}

const globalForLimiter = globalThis as unknown as { driftwatchSignInLimiter?: SignInLimiter };
/** One limiter per process, surviving dev hot reloads. */
export const signInLimiter: SignInLimiter = (globalForLimiter.driftwatchSignInLimiter ??= new SignInLimiter());
