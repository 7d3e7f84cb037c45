// Alert delivery to webhooks: Slack-compatible JSON (`text` plus `blocks`),
// signed with HMAC-SHA256 when the webhook has a secret, so receivers can
// tell Driftwatch's messages from anyone else's.
import { createHash, createHmac } from "node:crypto";
import { canonicalJson } from "@/lib/audit/canonical";
import { namedVariable } from "@/lib/env";
import type { AlertType, Severity } from "./rules";
import { runbookFor } from "./runbooks";

export interface WebhookTarget {
  name: string;
  url: string;
  secretEnv?: string;
}

export interface DeliverableAlert {
  id: string;
  type: AlertType;
  severity: Severity;
  title: string;
  environment: string | null;
  details: Record<string, unknown>;
  openedAt: Date;
  resolvedAt: Date | null;
}

export type AlertEvent = "alert.opened" | "alert.updated" | "alert.resolved";

/** What a receiver sees; a change in it is what makes a re-send. */
export function contentHash(a: Pick<DeliverableAlert, "type" | "severity" | "title" | "details" | "resolvedAt">): string {
  return createHash("sha256")
    .update(canonicalJson({ type: a.type, severity: a.severity, title: a.title, details: a.details, state: a.resolvedAt ? "resolved" : "open" }))
    .digest("hex");
}

const ICON: Record<Severity, string> = { critical: ":red_circle:", warning: ":large_orange_circle:", info: ":large_blue_circle:" };

export function alertPayload(alert: DeliverableAlert, event: AlertEvent, opts: { publicUrl?: string; runbooks?: Record<string, string> } = {}) {
  const runbook = runbookFor(alert.type, alert.details, opts.runbooks);
  const prefix = event === "alert.resolved" ? ":white_check_mark: Resolved:" : `${ICON[alert.severity]} ${event === "alert.updated" ? "Updated:" : ""}`.trim();
  const link = opts.publicUrl ? `${opts.publicUrl.replace(/\/$/, "")}/alerts/${alert.id}` : null;
  const text = `${prefix} ${alert.title}`;
  const lines = [
    `*${text}*`,
    runbook.summary,
    event === "alert.resolved" ? null : `*Check:* ${runbook.check.join(" · ")}`,
    event === "alert.resolved" ? null : `*Do:* ${runbook.act.join(" · ")}`,
  ].filter((l): l is string => l !== null);
  const context = [runbook.url ? `<${runbook.url}|Runbook>` : null, link ? `<${link}|Open in Driftwatch>` : null, alert.environment ? `env: ${alert.environment}` : null].filter(
    (l): l is string => l !== null,
  );
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: lines.join("\n") } },
      ...(context.length ? [{ type: "context", elements: context.map((c) => ({ type: "mrkdwn", text: c })) }] : []),
    ],
    driftwatch: {
      event,
      alert: {
        id: alert.id,
        type: alert.type,
        severity: alert.severity,
        title: alert.title,
        environment: alert.environment,
        details: alert.details,
        openedAt: alert.openedAt.toISOString(),
        resolvedAt: alert.resolvedAt?.toISOString() ?? null,
      },
    },
  };
}

export function signature(secret: string, body: string): string {
  return "sha256=" + createHmac("sha256", secret).update(body).digest("hex");
}

export interface DeliveryResult {
  webhook: string;
  ok: boolean;
  status?: number;
  error?: string;
}

/** Posts to one webhook; never throws, never logs the URL's secret parts or the signing key. */
export async function postWebhook(
  target: WebhookTarget,
  payload: unknown,
  event: AlertEvent | "audit.checkpoint",
  opts: { env?: Record<string, string | undefined>; timeoutMs?: number; fetchImpl?: typeof fetch } = {},
): Promise<DeliveryResult> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "driftwatch-alerts/0.1", "x-driftwatch-event": event };
  if (target.secretEnv) {
    const secret = opts.env ? opts.env[target.secretEnv] : namedVariable(target.secretEnv);
    if (!secret) return { webhook: target.name, ok: false, error: `environment variable ${target.secretEnv} (the webhook secret) is not set` };
    headers["x-driftwatch-signature"] = signature(secret, body);
  }
  try {
    const res = await (opts.fetchImpl ?? fetch)(target.url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
      redirect: "error",
    });
    await res.arrayBuffer().catch(() => undefined);
    return { webhook: target.name, ok: res.ok, status: res.status, ...(res.ok ? {} : { error: `HTTP ${res.status}` }) };
  } catch (e) {
    const name = e instanceof Error ? e.name : "";
    return { webhook: target.name, ok: false, error: name === "TimeoutError" ? "timed out" : "could not connect" };
  }
}
