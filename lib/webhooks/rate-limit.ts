// Webhook throttling per client address, in memory per process (like the
// sign-in limiter): a ceiling on requests, and a much lower one on requests
// that fail verification, so a guesser is stopped long before the audit log
// fills with its attempts.
import { RequestLimiter } from "@/lib/auth/rate-limit";

export class WebhookLimiter extends RequestLimiter {
  constructor(opts: { requestsPerMinute?: number; failuresPer10Minutes?: number } = {}) {
    super({ requestsPerMinute: opts.requestsPerMinute ?? 120, failuresPer10Minutes: opts.failuresPer10Minutes ?? 10 });
  }
}

const holder = globalThis as unknown as { driftwatchWebhookLimiter?: WebhookLimiter };
/** One limiter per process, surviving dev hot reloads. */
export const webhookLimiter: WebhookLimiter = (holder.driftwatchWebhookLimiter ??= new WebhookLimiter());
