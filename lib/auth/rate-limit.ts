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
 * Password guessing, limited three ways over a quarter of an hour:
 * - per address and username: 5 failures, then that address waits (a guesser at one account);
 * - per address: 20 failures across any usernames, then that address waits (a spray from one place);
 * - per username: past 25 failures from all addresses together the account is
 *   *under attack*. It is not locked: a lockout would let anyone with a few
 *   addresses keep an administrator out. Instead every address gets a budget
 *   of one failure at that account while the attack lasts, so each attacking
 *   address is slowed to one guess per window, and the owner, signing in from
 *   an address that has not failed, still gets in.
 * Throttled attempts are refused before the password is checked (no scrypt,
 * no database), so they cost next to nothing.
 */
export class SignInLimiter {
  static readonly PER_CLIENT_AND_USER = 5;
  static readonly PER_CLIENT = 20;
  static readonly UNDER_ATTACK_AFTER = 25;

  readonly perClientAndUser = new FailureLimiter({ max: SignInLimiter.PER_CLIENT_AND_USER, windowMs: WINDOW });
  readonly perClient = new FailureLimiter({ max: SignInLimiter.PER_CLIENT, windowMs: WINDOW });
  /** Counts failures per username; past its ceiling the account is under attack (never locked). */
  readonly perUser = new FailureLimiter({ max: SignInLimiter.UNDER_ATTACK_AFTER, windowMs: WINDOW });
  /** While an account is under attack: one failure per address and username. */
  readonly underAttack = new FailureLimiter({ max: 1, windowMs: WINDOW });

  check(ip: string, username: string, now: number = Date.now()): LimitDecision {
    const pair = `${ip}|${username.toLowerCase()}`;
    const decisions = [this.perClientAndUser.check(pair, now), this.perClient.check(ip, now)];
    if (this.isUnderAttack(username, now)) decisions.push(this.underAttack.check(pair, now));
    const refused = decisions.filter((d) => !d.allowed);
    if (refused.length === 0) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(...refused.map((d) => d.retryAfterSeconds)) };
  }

  isUnderAttack(username: string, now: number = Date.now()): boolean {
    return !this.perUser.check(username.toLowerCase(), now).allowed;
  }

  fail(ip: string, username: string, now: number = Date.now()): void {
    const pair = `${ip}|${username.toLowerCase()}`;
    this.perClientAndUser.fail(pair, now);
    this.perClient.fail(ip, now);
    this.perUser.fail(username.toLowerCase(), now);
    this.underAttack.fail(pair, now);
  }

  succeed(ip: string, username: string): void {
    const pair = `${ip}|${username.toLowerCase()}`;
    this.perClientAndUser.reset(pair);
    this.underAttack.reset(pair);
  }
}

/**
 * A ceiling on requests per address and a much lower one on failed requests
 * (webhooks, the OIDC callback): a guesser is stopped long before it costs
 * anything, and its refused requests write nothing.
 */
export class RequestLimiter {
  readonly requests: FailureLimiter;
  readonly failures: FailureLimiter;

  constructor(opts: { requestsPerMinute: number; failuresPer10Minutes: number }) {
    this.requests = new FailureLimiter({ max: opts.requestsPerMinute, windowMs: 60_000 });
    this.failures = new FailureLimiter({ max: opts.failuresPer10Minutes, windowMs: 10 * 60_000 });
  }

  /** Counts the request; refuses it when either ceiling is reached. */
  admit(ip: string, now: number = Date.now()): LimitDecision {
    const f = this.failures.check(ip, now);
    if (!f.allowed) return f;
    const r = this.requests.check(ip, now);
    if (!r.allowed) return r;
    this.requests.fail(ip, now);
    return { allowed: true, retryAfterSeconds: 0 };
  }

  failed(ip: string, now: number = Date.now()): void {
    this.failures.fail(ip, now);
  }
}

const globalForLimiter = globalThis as unknown as { driftwatchSignInLimiter?: SignInLimiter; driftwatchOidcCallbackLimiter?: RequestLimiter };
/** One limiter per process, surviving dev hot reloads. */
export const signInLimiter: SignInLimiter = (globalForLimiter.driftwatchSignInLimiter ??= new SignInLimiter());
/** The OIDC callback: a browser comes back a few times a day; a flood of errors comes from a script. */
export const oidcCallbackLimiter: RequestLimiter = (globalForLimiter.driftwatchOidcCallbackLimiter ??= new RequestLimiter({ requestsPerMinute: 30, failuresPer10Minutes: 10 }));
