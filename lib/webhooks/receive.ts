// POST /api/webhooks/git, independent of Next: identify the sender, verify
// its signature with the secret of the repository the payload names, refuse
// replays by delivery id, and queue an immediate run of every environment
// following the pushed repository and branch (and of every environment that
// discovers its applications; a tag push runs only those, since declared sources follow branches). The delivery record, the runs
// and the audit events commit together or not at all.
import { createHash } from "node:crypto";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { DriftwatchConfig, EnvironmentConfig, RepositoryConfig } from "@/lib/config";
import { appendAudit } from "@/lib/audit";
import { namedVariable } from "@/lib/env";
import { enqueueRun } from "@/lib/collector/jobs";
import { identifyDelivery, isPushEvent, verifyProof, type HeaderSource, type WebhookProvider } from "./providers";
import { parsePush, type PushInfo } from "./push";
import { matchRepositories } from "./match";
import { webhookLimiter, type WebhookLimiter } from "./rate-limit";
import { failedAttemptAudit, type FailedAttemptAudit } from "@/lib/auth/failed-attempts";

class ReplayRefused extends Error {}

export const MAX_WEBHOOK_BYTES = 5 * 1024 * 1024;

export interface WebhookRequest {
  headers: HeaderSource;
  body: Buffer;
  ip: string;
}

export interface WebhookResult {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface WebhookDeps {
  db: PrismaClient;
  config: DriftwatchConfig;
  /** Reads a secret by env var name (lib/env's namedVariable by default). */
  secret?: (envVar: string) => string | undefined;
  limiter?: WebhookLimiter;
  failures?: FailedAttemptAudit;
  now?: () => Date;
}

function error(status: number, code: string, message: string, headers?: Record<string, string>): WebhookResult {
  return { status, body: { error: { code, message } }, headers };
}

/** Audited through lib/auth/failed-attempts: the first rejection from an address at once, the rest as one summary per window. */
async function reject(deps: WebhookDeps, req: WebhookRequest, limiter: WebhookLimiter, provider: WebhookProvider | "unknown", reason: string, extra: Record<string, unknown> = {}): Promise<WebhookResult> {
  limiter.failed(req.ip);
  await (deps.failures ?? failedAttemptAudit()).record(
    {
      action: "webhook.rejected",
      method: provider,
      ip: req.ip,
      target: provider,
      reason,
      event: {
        actor: { type: "anonymous", name: `webhook from ${req.ip}` },
        action: "webhook.rejected",
        targetType: "webhook",
        targetId: provider,
        reason,
        after: { provider, ip: req.ip, ...extra },
      },
    },
    (deps.now ?? (() => new Date()))(),
  );
  return error(401, "unauthorized", "webhook signature does not verify");
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** GitLab and Gitea can send form-encoded bodies; only JSON carries what we need. */
function payloadOf(body: Buffer): unknown {
  const parsed = parseJson(body);
  if (parsed !== undefined) return parsed;
  // GitHub's form encoding: payload=<url-encoded JSON>
  const text = body.toString("utf8");
  if (text.startsWith("payload=")) return parseJson(Buffer.from(decodeURIComponent(text.slice("payload=".length).replace(/\+/g, " "))));
  return undefined;
}

export async function receiveWebhook(deps: WebhookDeps, req: WebhookRequest): Promise<WebhookResult> {
  const limiter = deps.limiter ?? webhookLimiter;
  const readSecret = deps.secret ?? namedVariable;
  const now = (deps.now ?? (() => new Date()))();

  const admitted = limiter.admit(req.ip, now.getTime());
  if (!admitted.allowed) {
    return error(429, "rate_limited", `too many webhook requests from this address; retry in ${admitted.retryAfterSeconds} s`, { "retry-after": String(admitted.retryAfterSeconds) });
  }
  if (req.body.length > MAX_WEBHOOK_BYTES) return error(413, "too_large", `webhook body larger than ${MAX_WEBHOOK_BYTES / 1024 / 1024} MiB`);

  const delivery = identifyDelivery(req.headers);
  if (!delivery) {
    return reject(deps, req, limiter, "unknown", "no signature header (expected X-Hub-Signature-256, X-Gitlab-Token, X-Gitea-Signature or X-Driftwatch-Signature)");
  }
  if (!delivery.proof) return reject(deps, req, limiter, delivery.provider, "signature header missing");

  const payload = payloadOf(req.body);
  const push = parsePush(payload);
  const named = matchRepositories(push, deps.config.repositories);
  // Nothing named in the payload matches: still find out whether the sender is
  // genuine, so a URL mismatch in driftwatch.yaml gets a helpful answer.
  const candidates = named.length > 0 ? named : deps.config.repositories;
  const withSecret = candidates.filter((r) => r.webhookSecretEnv && readSecret(r.webhookSecretEnv));
  const verified: RepositoryConfig | undefined = withSecret.find((r) => verifyProof(delivery.provider, delivery.proof as string, readSecret(r.webhookSecretEnv as string) as string, req.body));
  if (!verified) {
    const reason =
      withSecret.length === 0
        ? named.length > 0
          ? `repository ${named.map((r) => r.name).join(", ")} has no webhook secret (set webhookSecretEnv and that variable)`
          : "no configured repository has a webhook secret"
        : "signature does not verify";
    return reject(deps, req, limiter, delivery.provider, reason, { deliveryId: delivery.deliveryId, event: delivery.event, repositories: named.map((r) => r.name) });
  }
  if (payload === undefined) return error(400, "bad_request", "webhook body is not JSON");
  if (!delivery.deliveryId) {
    return error(400, "bad_request", `missing delivery id header (${deliveryHeaderOf(delivery.provider)}); it is needed to refuse replays`);
  }
  if (!isPushEvent(delivery)) {
    return { status: 200, body: { ok: true, ignored: `event "${delivery.event ?? "?"}" is not a push; signature verified for repository ${verified.name}` } };
  }
  if (named.length === 0) {
    return { status: 200, body: { ok: true, ignored: `no repository in driftwatch.yaml matches ${[...push.urls, ...push.names].slice(0, 4).join(", ") || "this payload"}` } };
  }
  if (!push.branch && !tagOf(push)) return { status: 200, body: { ok: true, ignored: `ref ${push.ref ?? "(none)"} is not a branch or a tag` } };
  return accept(deps, req, delivery.provider, delivery.deliveryId, push, verified, now);
}

function deliveryHeaderOf(p: WebhookProvider): string {
  return { github: "X-GitHub-Delivery", gitlab: "X-Gitlab-Event-UUID", gitea: "X-Gitea-Delivery", generic: "X-Driftwatch-Delivery" }[p];
}

/**
 * Whether a push to repo@branch concerns an environment: one of its declared
 * sources follows that branch, or it discovers its applications (their
 * sources are only known once the run reads the cluster, so any push may be theirs).
 */
function follows(env: EnvironmentConfig, repo: RepositoryConfig, branch: string | null): boolean {
  if (env.discover) return true;
  // Declared sources follow branches; a tag (or a semver range over tags) is only ever a discovered application's.
  if (branch === null) return false;
  const sources = env.applications ? env.applications.map((a) => a.source) : env.source ? [env.source] : [];
  return sources.some((s) => s.repository === repo.name && s.branch === branch);
}

/** The tag a push created or moved (refs/tags/…), else null. */
function tagOf(push: PushInfo): string | null {
  return push.ref?.startsWith("refs/tags/") ? push.ref.slice("refs/tags/".length) || null : null;
}

async function accept(deps: WebhookDeps, req: WebhookRequest, provider: WebhookProvider, deliveryId: string, push: PushInfo, repo: RepositoryConfig, now: Date): Promise<WebhookResult> {
  const branch = push.branch;
  const tag = branch === null ? tagOf(push) : null;
  const pushed = branch !== null ? `${repo.name}@${branch}` : `tag ${tag} of ${repo.name}`;
  const following = deps.config.environments.filter((e) => follows(e, repo, branch)).map((e) => e.name);
  const key = `${provider}:${deliveryId}`;
  // The delivery id is not covered by the signature: a captured delivery sent
  // again under a new id must still be a replay. The digest of the signed
  // body is remembered beside the id, and either one seen before refuses it.
  // (A host's own "redeliver" reuses the id, and two real pushes never share a body.)
  const bodyKey = `sha256:${createHash("sha256").update(req.body).digest("hex")}`;
  const result = await deps.db
    .$transaction(async (tx) => {
      const inserted = await tx.$executeRaw`
        INSERT INTO "WebhookDelivery" ("deliveryId", provider, "receivedAt") VALUES (${key}, ${provider}, ${now}), (${bodyKey}, ${provider}, ${now})
        ON CONFLICT ("deliveryId") DO NOTHING`;
      // Throwing rolls back the half that was new, so neither key is spent by a refused replay.
      if (inserted < 2) throw new ReplayRefused(inserted === 1 ? "replayed body under a new delivery id" : "replayed delivery id");
      const envs = await tx.environment.findMany({ where: { name: { in: following }, removedAt: null }, select: { id: true, name: true }, orderBy: { position: "asc" } });
      const runs: Array<{ environment: string; runId: number }> = [];
      for (const env of envs) runs.push({ environment: env.name, runId: await enqueueRun(tx, env.id, "webhook", { notBefore: now }) });
      const after = { provider, deliveryId, repository: repo.name, ...(branch !== null ? { branch } : { tag }), after: push.after, ip: req.ip };
      for (const target of runs.length > 0 ? runs : [null]) {
        await appendAudit(tx, {
          actor: { type: "system", name: `webhook:${provider}` },
          action: "webhook.accepted",
          targetType: "webhook",
          targetId: key,
          environment: target?.environment ?? null,
          reason: branch !== null ? `push to ${pushed}` : `push of ${pushed}`,
          after: target ? { ...after, runId: target.runId } : after,
          at: now,
        });
      }
      return runs;
    })
    .catch((e: unknown) => {
      if (e instanceof ReplayRefused) return e;
      throw e;
    });
  if (result instanceof ReplayRefused) {
    return reject(deps, req, deps.limiter ?? webhookLimiter, provider, result.message, { deliveryId }).then(() =>
      error(409, "conflict", result.message === "replayed delivery id" ? `delivery ${deliveryId} was already received` : "this push was already received under another delivery id"),
    );
  }
  return {
    status: 202,
    body: {
      ok: true,
      repository: repo.name,
      ...(branch !== null ? { branch } : { tag: tag as string }),
      runs: result,
      ...(result.length === 0 ? { message: `no environment follows ${pushed}` } : {}),
    },
  };
}
