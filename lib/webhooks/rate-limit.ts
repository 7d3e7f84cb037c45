// Webhook throttling per client address, in memory per process (like the
// sign-in limiter): a ceiling on requests, and a much lower one on requests
// that fail verification, so a guesser is stopped long before the audit log
// fills with its attempts.
import { FailureLimiter, type LimitDecision } from "@/lib/auth/rate-limit";

export class WebhookLimiter {
  readonly requests: FailureLimiter;
  readonly failures: FailureLimiter;

  constructor(opts: { requestsPerMinute?: number; failuresPer10Minutes?: number } = {}) {
    this.requests = new FailureLimiter({ max: opts.requestsPerMinute ?? 120, windowMs: 60_000 });
    this.failures = new FailureLimiter({ max: opts.failuresPer10Minutes ?? 10, windowMs: 10 * 60_000 });
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

const holder = globalThis as unknown as { driftwatchWebhookLimiter?: WebhookLimiter };
/** One limiter per process, surviving dev hot reloads. */
export const webhookLimiter: WebhookLimiter = (holder.driftwatchWebhookLimiter ??= new WebhookLimiter());
