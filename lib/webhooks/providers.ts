// Which Git host sent a webhook, and whether its proof of origin holds.
// Signatures are HMAC-SHA256 over the exact bytes received; every comparison
// is constant-time, and compares digests of equal length so a wrong guess
// reveals neither where it differs nor how long the secret is.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export type WebhookProvider = "github" | "gitlab" | "gitea" | "generic";

export interface HeaderSource {
  get(name: string): string | null;
}

export interface IdentifiedDelivery {
  provider: WebhookProvider;
  /** The sender's unique id for this delivery (replay protection); null when it sent none. */
  deliveryId: string | null;
  /** The event name as the provider spells it (`push`, `Push Hook`, …); null for the generic header. */
  event: string | null;
  /** The proof as sent: a signature or (GitLab) the shared token itself. */
  proof: string | null;
}

const MAX_DELIVERY_ID = 200;

function header(h: HeaderSource, ...names: string[]): string | null {
  for (const n of names) {
    const v = h.get(n);
    if (v !== null && v !== "") return v;
  }
  return null;
}

/** Null when no known webhook header is present. */
export function identifyDelivery(h: HeaderSource): IdentifiedDelivery | null {
  const pick = (provider: WebhookProvider, deliveryId: string | null, event: string | null, proof: string | null): IdentifiedDelivery => ({
    provider,
    deliveryId: deliveryId && deliveryId.length <= MAX_DELIVERY_ID ? deliveryId.trim() : null,
    event,
    proof,
  });
  // The generic header first: a proxy in front of any host may add it deliberately.
  const generic = header(h, "x-driftwatch-signature");
  if (generic !== null) return pick("generic", header(h, "x-driftwatch-delivery"), header(h, "x-driftwatch-event"), generic);
  // Gitea and Forgejo also send X-GitHub-* headers for compatibility, so they are checked before GitHub.
  const gitea = header(h, "x-gitea-signature", "x-forgejo-signature");
  if (gitea !== null || header(h, "x-gitea-event", "x-forgejo-event") !== null) {
    return pick("gitea", header(h, "x-gitea-delivery", "x-forgejo-delivery"), header(h, "x-gitea-event", "x-forgejo-event"), gitea);
  }
  if (header(h, "x-gitlab-event", "x-gitlab-token") !== null) {
    return pick("gitlab", header(h, "x-gitlab-event-uuid", "x-gitlab-webhook-uuid"), header(h, "x-gitlab-event"), header(h, "x-gitlab-token"));
  }
  if (header(h, "x-github-event", "x-hub-signature-256", "x-github-delivery") !== null) {
    return pick("github", header(h, "x-github-delivery"), header(h, "x-github-event"), header(h, "x-hub-signature-256"));
  }
  return null;
}

function digest(value: string | Buffer): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Constant-time string equality (via digests, so lengths need not match). */
export function safeCompare(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function hmacHex(secret: string, body: Buffer | string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

/**
 * Whether `proof` is the right one for `body` under `secret`, the way the
 * provider computes it: GitHub and the generic header `sha256=<hex>`, Gitea
 * and Forgejo bare hex, GitLab the secret token itself.
 */
export function verifyProof(provider: WebhookProvider, proof: string, secret: string, body: Buffer): boolean {
  if (secret === "") return false;
  if (provider === "gitlab") return safeCompare(proof, secret);
  const expected = hmacHex(secret, body);
  let sent = proof.trim();
  if (provider === "github" || provider === "generic") {
    if (!sent.toLowerCase().startsWith("sha256=")) return false;
    sent = sent.slice("sha256=".length);
  }
  return safeCompare(sent.toLowerCase(), expected);
}

/** Events that mean "a branch moved". Others are acknowledged and ignored. */
export function isPushEvent(d: IdentifiedDelivery): boolean {
  if (d.event === null) return d.provider === "generic";
  const e = d.event.toLowerCase();
  return e === "push" || e === "push hook";
}
