// Every operation of the JSON API, declared once: method, path, what it is,
// who may call it, its path/query/body schemas and its answers per status.
// The route handlers are built from these entries (lib/api/route.ts parses
// their input with these schemas and type-checks their answer against the
// success schema), /api/openapi.json is generated from them (./openapi.ts),
// and test/integration/api-contract.test.ts calls each one and validates the
// answer — so a route cannot drift from its document. One file on purpose
// (over 400 lines): the API's table of contents, read top to bottom.
import { z } from "zod";
import type { Role } from "@/lib/auth/roles";
import { roleSchema } from "@/lib/auth/roles";
import { usernameSchema } from "@/lib/auth/users";
import { createPauseSchema, resumePauseSchema, takeOwnershipSchema } from "@/lib/pauses/pauses";
import { createClaimSchema, releaseClaimSchema, transferClaimSchema } from "@/lib/claims/claims";
import { AlertList, AlertRefresh, alertListQuery } from "./alerts";
import { ApplicationDetailDto, ApplicationListDto, applicationListQuery, applicationParams } from "./applications";
import { AuditPage, ChainVerification, auditQuery } from "./audit";
import { SessionInfo, SignedIn, SignedOut, UserAnswer, UserList, oidcStartQuery, signInBody } from "./auth";
import { AdoptPatch, ClaimAnswer, ClaimList, adoptPatchQuery, claimListQuery } from "./claims";
import { CompareDto, compareQuerySchema } from "./compare";
import { DriftListDto, ObjectDetailDto, driftQuerySchema } from "./drift";
import { EnvironmentDetailDto, EnvironmentListDto, RefreshQueuedDto, RunDto } from "./environments";
import { CommitLookupDto, LineageDto, lineageQuerySchema } from "./lineage";
import { MetricsDto, metricsQuerySchema } from "./metrics";
import { envParams, objectParams, runParams, shaParam, uuidParams } from "./params";
import { PauseAnswer, PauseList, PausePolicyDto, PauseResumed, pauseListQuery, pausePolicyQuery } from "./pauses";
import { Health, Liveness, OpenApiDocument, Readiness, WebhookIgnored, WebhookQueued } from "./system";
import { ApiErrorBody } from "./schema";
import { TimelineAnswer, timelineQuerySchema } from "./timeline";
import { SearchAnswer, searchQuery } from "./search";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/**
 * Who may call it. "public": anyone (sign-in, probes, webhooks: their own
 * checks). "signed-in": any session. A role: a mutation needing that role,
 * the CSRF token and our origin (lib/api/route.ts mutationRoute).
 */
export type Access = "public" | "signed-in" | Role;

/** One answer: a JSON body with its schema, and/or other media types (downloads) described in words. */
export interface Answer {
  description: string;
  json?: z.ZodType;
  /** Other media types this status may carry, e.g. `{ "text/csv": "The events as CSV" }`. */
  other?: Record<string, string>;
}

export interface Operation {
  method: Method;
  /** OpenAPI style: /api/environments/{env}. */
  path: string;
  summary: string;
  description?: string;
  tag: "environments" | "drift" | "lineage" | "timeline" | "runs" | "pauses" | "claims" | "audit" | "auth" | "system";
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The success answer. */
  ok: Answer & { status: 200 | 201 | 202 | 302 };
  /** Other documented answers besides the error envelope's usual ones (added from `access` and the input). */
  also?: Record<number, Answer>;
  /** Error answers (the error envelope) particular to this operation, with why. */
  errors?: Record<number, string>;
}

function op<const O extends Operation>(o: O): O {
  return o;
}

const CSRF_NOTE = "Requires the session cookie and the CSRF token (from `GET /api/auth/session`) in the `x-csrf-token` header.";

export const operations = {
  listEnvironments: op({
    method: "get",
    path: "/api/environments",
    summary: "List environments",
    description: "Every environment in promotion order, with status, approved vs applied revision, drift counts, controller health, last collection, open alerts, active pauses.",
    tag: "environments",
    access: "signed-in",
    ok: { status: 200, description: "The environments", json: EnvironmentListDto },
  }),
  getEnvironment: op({
    method: "get",
    path: "/api/environments/{env}",
    summary: "One environment",
    description:
      "The environment card plus rollout health, last run, ignored-by-rule counts, rollback guidance (previous applied revisions with the exact `git revert` range) and the kinds/namespaces that have drift.",
    tag: "environments",
    access: "signed-in",
    params: envParams,
    ok: { status: 200, description: "The environment", json: EnvironmentDetailDto },
    errors: { 404: "Unknown environment" },
  }),
  listApplications: op({
    method: "get",
    path: "/api/environments/{env}/applications",
    summary: "Applications of an environment",
    description: "Every application (Flux Kustomization or HelmRelease, Argo CD Application, declared source) with its status, revisions and drift count, and the environment's rollup; filtered by status, kind and text.",
    tag: "environments",
    access: "signed-in",
    params: envParams,
    query: applicationListQuery,
    ok: { status: 200, description: "The applications", json: ApplicationListDto },
    errors: { 404: "Unknown environment" },
  }),
  getApplication: op({
    method: "get",
    path: "/api/environments/{env}/applications/{app}",
    summary: "One application",
    description: "The application's summary, its open drift and the revisions it applied. A removed application still answers, with its history.",
    tag: "environments",
    access: "signed-in",
    params: applicationParams,
    ok: { status: 200, description: "The application", json: ApplicationDetailDto },
    errors: { 404: "Unknown environment or application" },
  }),
  listDrift: op({
    method: "get",
    path: "/api/environments/{env}/drift",
    summary: "Drift items of an environment",
    description: "Filtered, searched, sorted, keyset-paginated: pass `nextCursor` back as `cursor` with the same sort for the next page.",
    tag: "drift",
    access: "signed-in",
    params: envParams,
    query: driftQuerySchema,
    ok: { status: 200, description: "A page of drift items", json: DriftListDto },
    errors: { 404: "Unknown environment" },
  }),
  getObject: op({
    method: "get",
    path: "/api/environments/{env}/objects/{group}/{kind}/{namespace}/{name}",
    summary: "One object: desired vs live",
    description:
      "Normalised side-by-side YAML rows with the changed lines marked and each change's attribution, the drift history and the Git file and commit. Secret values are always `(hidden)`.",
    tag: "drift",
    access: "signed-in",
    params: objectParams,
    ok: { status: 200, description: "The object", json: ObjectDetailDto },
    errors: { 404: "Unknown environment or object" },
  }),
  refreshEnvironment: op({
    method: "post",
    path: "/api/environments/{env}/refresh",
    summary: "Refresh now",
    description: "Queues a collection of the environment at once (role operator). Poll `/api/runs/{runId}` for progress.",
    tag: "runs",
    access: "operator",
    params: z.object({ env: z.string().min(1).max(100).describe("Environment name") }),
    ok: { status: 202, description: "Queued", json: RefreshQueuedDto },
    errors: { 404: "Unknown environment" },
  }),
  getRun: op({
    method: "get",
    path: "/api/runs/{id}",
    summary: "A collection run",
    description: "Status and progress (objects read so far) of a run, e.g. one started by Refresh now.",
    tag: "runs",
    access: "signed-in",
    params: runParams,
    ok: { status: 200, description: "The run", json: RunDto },
    errors: { 404: "Unknown run" },
  }),
  lookupCommit: op({
    method: "get",
    path: "/api/commits/{sha}",
    summary: "Where is this commit live?",
    description:
      "Full or short sha. Per environment: live (since when, through which applied revision, and whether through a later commit that contains it), pending (and why), or not approved yet; plus time to promote per hop.",
    tag: "lineage",
    access: "signed-in",
    params: shaParam,
    ok: { status: 200, description: "The commit, or the candidates of an ambiguous short sha", json: CommitLookupDto },
    errors: { 404: "Unknown commit" },
  }),
  getLineage: op({
    method: "get",
    path: "/api/lineage",
    summary: "Commits of each followed branch with a badge per environment",
    tag: "lineage",
    access: "signed-in",
    query: lineageQuerySchema,
    ok: { status: 200, description: "The lineage", json: LineageDto },
  }),
  getTimeline: op({
    method: "get",
    path: "/api/timeline",
    summary: "Incident timeline",
    description:
      "Commits, applied-revision changes, drift opened/resolved, pauses, claims, alerts and collection failures in one stream, oldest first. " +
      "With `format`, a download of the same events: CSV, JSON, or Markdown that reads as an incident write-up (times in UTC).",
    tag: "timeline",
    access: "signed-in",
    query: timelineQuerySchema,
    ok: {
      status: 200,
      description: "The timeline, or a download with `format`",
      json: TimelineAnswer,
      other: { "text/csv": "format=csv", "text/markdown": "format=md" },
    },
    errors: { 404: "Unknown environment or application" },
  }),
  compareEnvironments: op({
    method: "get",
    path: "/api/compare",
    summary: "Compare two environments",
    description: "Object by object and field by field: live vs live, or desired (Git) vs desired.",
    tag: "environments",
    access: "signed-in",
    query: compareQuerySchema,
    ok: { status: 200, description: "The comparison", json: CompareDto },
    errors: { 404: "Unknown environment" },
  }),
  getDeliveryMetrics: op({
    method: "get",
    path: "/api/delivery-metrics",
    summary: "Delivery metrics",
    tag: "environments",
    access: "signed-in",
    query: metricsQuerySchema,
    ok: { status: 200, description: "The metrics", json: MetricsDto },
    errors: { 404: "No environment holds that application" },
  }),
  listPauses: op({
    method: "get",
    path: "/api/pauses",
    summary: "List pauses",
    tag: "pauses",
    access: "signed-in",
    query: pauseListQuery,
    ok: { status: 200, description: "Pauses, newest first", json: PauseList },
  }),
  createPause: op({
    method: "post",
    path: "/api/pauses",
    summary: "Pause reconciliation",
    description:
      "Of an environment, or of one application (`application`: its controller object) (role operator). Executed on the controller where a write credential is configured; production may require `confirm` (the environment's name).",
    tag: "pauses",
    access: "operator",
    body: createPauseSchema.extend({ environment: z.string().min(1).max(100) }),
    ok: { status: 201, description: "The pause created", json: PauseAnswer },
    errors: { 404: "Unknown environment or application", 409: "Already paused (the environment, or that application)", 503: "The controller could not be paused" },
  }),
  getPausePolicy: op({
    method: "get",
    path: "/api/pauses/policy",
    summary: "What a pause needs in an environment",
    description: "Whether typing the name to confirm is required, the longest expiry, and whether Driftwatch performs it on the controller.",
    tag: "pauses",
    access: "signed-in",
    query: pausePolicyQuery,
    ok: { status: 200, description: "The policy", json: PausePolicyDto },
    errors: { 404: "Unknown environment", 503: "The environment's configuration has not been loaded yet" },
  }),
  getPause: op({
    method: "get",
    path: "/api/pauses/{id}",
    summary: "One pause",
    tag: "pauses",
    access: "signed-in",
    params: uuidParams("pause"),
    ok: { status: 200, description: "The pause", json: PauseAnswer },
    errors: { 404: "Unknown pause" },
  }),
  resumePause: op({
    method: "post",
    path: "/api/pauses/{id}/resume",
    summary: "Resume reconciliation",
    description: "Ends a pause and restores the controller's previous policy (role operator).",
    tag: "pauses",
    access: "operator",
    params: uuidParams("pause"),
    body: resumePauseSchema,
    ok: { status: 200, description: "The ended pause", json: PauseResumed },
    errors: { 404: "Unknown pause", 409: "The pause has already ended", 503: "The controller could not be resumed; the pause stays" },
  }),
  takePauseOwnership: op({
    method: "post",
    path: "/api/pauses/{id}/ownership",
    summary: "Take ownership of a detected pause",
    description: "An unattributed pause (seen suspended in the cluster with no record) gets an owner, a reason and an expiry (role operator).",
    tag: "pauses",
    access: "operator",
    params: uuidParams("pause"),
    body: takeOwnershipSchema,
    ok: { status: 200, description: "The pause, now owned", json: PauseAnswer },
    errors: { 404: "Unknown pause", 409: "The pause has already ended", 503: "The environment's configuration has not been loaded yet" },
  }),
  listClaims: op({
    method: "get",
    path: "/api/claims",
    summary: "List claims (temporary divergences)",
    tag: "claims",
    access: "signed-in",
    query: claimListQuery,
    ok: { status: 200, description: "Claims with their drift items", json: ClaimList },
  }),
  createClaim: op({
    method: "post",
    path: "/api/claims",
    summary: "Claim drift items",
    description: "A temporary divergence: owner (yourself when absent), reason, incident link, expiry and return path (role operator).",
    tag: "claims",
    access: "operator",
    body: createClaimSchema,
    ok: { status: 201, description: "The claim created", json: ClaimAnswer },
    errors: { 404: "Unknown drift item or owner", 409: "A drift item is already claimed" },
  }),
  getClaim: op({
    method: "get",
    path: "/api/claims/{id}",
    summary: "One claim",
    tag: "claims",
    access: "signed-in",
    params: uuidParams("claim"),
    ok: { status: 200, description: "The claim with its drift items", json: ClaimAnswer },
    errors: { 404: "Unknown claim" },
  }),
  releaseClaim: op({
    method: "post",
    path: "/api/claims/{id}/release",
    summary: "Release a claim",
    description: "The drift becomes unowned again (role operator).",
    tag: "claims",
    access: "operator",
    params: uuidParams("claim"),
    body: releaseClaimSchema,
    ok: { status: 200, description: "The released claim", json: ClaimAnswer },
    errors: { 404: "Unknown claim", 409: "The claim is no longer active" },
  }),
  transferClaim: op({
    method: "post",
    path: "/api/claims/{id}/transfer",
    summary: "Transfer a claim",
    description: "To another user (role operator).",
    tag: "claims",
    access: "operator",
    params: uuidParams("claim"),
    body: transferClaimSchema,
    ok: { status: 200, description: "The claim, new owner", json: ClaimAnswer },
    errors: { 404: "Unknown claim or user", 409: "The claim is no longer active, or that user owns it already" },
  }),
  getAdoptPatch: op({
    method: "get",
    path: "/api/claims/{id}/adopt.patch",
    summary: "Adopt into Git: the patch",
    description:
      "The change that makes Git match live, for the owner to commit through the normal review: a unified diff (default) or, with `format=json`, the files and notes.",
    tag: "claims",
    access: "signed-in",
    params: uuidParams("claim"),
    query: adoptPatchQuery,
    ok: { status: 200, description: "The patch", json: AdoptPatch, other: { "text/x-diff": "A unified diff (default)" } },
    errors: { 404: "Unknown claim" },
  }),
  listAlerts: op({
    method: "get",
    path: "/api/alerts",
    summary: "Alerts",
    description: "Open and resolved alerts with their runbooks, open first.",
    tag: "environments",
    access: "signed-in",
    query: alertListQuery,
    ok: { status: 200, description: "Alerts", json: AlertList },
  }),
  refreshAlerts: op({
    method: "post",
    path: "/api/alerts/refresh",
    summary: "Re-evaluate alerts now",
    description: "Instead of waiting for the next collection (role operator).",
    tag: "environments",
    access: "operator",
    ok: { status: 200, description: "How many alerts opened, changed and resolved", json: AlertRefresh },
  }),
  listAuditEvents: op({
    method: "get",
    path: "/api/audit",
    summary: "Audit log",
    description: "A page of events (JSON), or every matching event as CSV or JSON lines with `format`.",
    tag: "audit",
    access: "signed-in",
    query: auditQuery,
    ok: { status: 200, description: "Events", json: AuditPage, other: { "text/csv": "format=csv", "application/x-ndjson": "format=jsonl" } },
  }),
  verifyAudit: op({
    method: "get",
    path: "/api/audit/verify",
    summary: "Verify the audit chain",
    description: "Recomputes the hash chain, compares it with the newest checkpoint kept outside the database, and names the first broken link.",
    tag: "audit",
    access: "signed-in",
    ok: { status: 200, description: "The verdict", json: ChainVerification },
  }),
  getSession: op({
    method: "get",
    path: "/api/auth/session",
    summary: "Who is signed in",
    description: "The user, the CSRF token mutations must send, and the sign-in methods on offer.",
    tag: "auth",
    access: "public",
    ok: { status: 200, description: "The session, or nulls when signed out", json: SessionInfo },
  }),
  signIn: op({
    method: "post",
    path: "/api/auth/signin",
    summary: "Password sign-in",
    tag: "auth",
    access: "public",
    body: signInBody,
    ok: { status: 200, description: "Signed in", json: SignedIn },
    errors: {
      400: "Bad input",
      401: "Wrong username or password",
      403: "Foreign origin, or password sign-in turned off",
      413: "Body too large",
      415: "Not sent as JSON",
      429: "Too many failed sign-ins",
    },
  }),
  signOut: op({
    method: "post",
    path: "/api/auth/signout",
    summary: "Sign out",
    description: "Ends the session (any signed-in user).",
    tag: "auth",
    access: "viewer",
    ok: { status: 200, description: "Signed out; the cookies are cleared", json: SignedOut },
  }),
  startOidc: op({
    method: "get",
    path: "/api/auth/oidc/start",
    summary: "Single sign-on, step 1",
    description: "Redirects to the OpenID provider (PKCE, state, nonce).",
    tag: "auth",
    access: "public",
    query: oidcStartQuery,
    ok: { status: 302, description: "To the provider; or to /signin with the error" },
  }),
  finishOidc: op({
    method: "get",
    path: "/api/auth/oidc/callback",
    summary: "Single sign-on, step 2",
    description: "The provider sends the browser back here with a code.",
    tag: "auth",
    access: "public",
    ok: { status: 302, description: "Signed in, to `next`; or to /signin with the error" },
  }),
  listUsers: op({
    method: "get",
    path: "/api/users",
    summary: "Users",
    description: "Admins see every field; others only names (to pick a claim's owner).",
    tag: "auth",
    access: "signed-in",
    ok: { status: 200, description: "Users", json: UserList },
  }),
  createUser: op({
    method: "post",
    path: "/api/users",
    summary: "Create a local user",
    description: "Role admin.",
    tag: "auth",
    access: "admin",
    body: z.object({ username: usernameSchema, role: roleSchema, password: z.string().max(1024), displayName: z.string().max(200).optional() }).strict(),
    ok: { status: 201, description: "The user", json: UserAnswer },
    errors: { 409: "Username taken" },
  }),
  updateUser: op({
    method: "patch",
    path: "/api/users/{username}",
    summary: "Change a user",
    description: "Role, password, display name or disabled state; their sessions end (role admin).",
    tag: "auth",
    access: "admin",
    params: z.object({ username: usernameSchema }),
    body: z
      .object({ role: roleSchema.optional(), password: z.string().max(1024).optional(), disabled: z.boolean().optional(), displayName: z.string().max(200).nullable().optional() })
      .strict()
      .refine((b) => Object.keys(b).length > 0, "nothing to change"),
    ok: { status: 200, description: "The user", json: UserAnswer },
    errors: { 404: "Unknown user", 409: "That would leave no admin" },
  }),
  search: op({
    method: "get",
    path: "/api/search",
    summary: "Find an environment, object, commit, person or alert",
    description:
      "Case-insensitive: environments by name; objects (live or drifted) whose `kind namespace/name` contains every word of `q` (a `/` separates words too); commits by sha prefix (4–40 hex digits); people by author or audit actor name or email; alerts by title. Each hit names the page that shows it.",
    tag: "environments",
    access: "signed-in",
    query: searchQuery,
    ok: { status: 200, description: "The hits", json: SearchAnswer },
  }),
  watchChanges: op({
    method: "get",
    path: "/api/live",
    summary: "What changed, as it commits (server-sent events)",
    description:
      "A `text/event-stream` that never ends by itself. Events: `ready` (first; `{heartbeatMs}`), `change` (`{tables}`: the dashboard tables a committed transaction wrote, coalesced; refetch what reads them), `heartbeat` (every `heartbeatMs`), and before the server ends it `lost` (the server stopped hearing the database's notifications: poll, then reconnect) or `signed-out`. No row data and nothing about sign-ins is sent. A client that reads slowly gets one message naming every table written meanwhile.",
    tag: "system",
    access: "signed-in",
    ok: { status: 200, description: "The stream", other: { "text/event-stream": "Server-sent events as described above" } },
    errors: { 503: "This server cannot hear the database's change notifications right now, or serves too many streams: poll and retry with backoff" },
  }),
  getOpenApi: op({
    method: "get",
    path: "/api/openapi.json",
    summary: "This document",
    tag: "system",
    access: "public",
    ok: { status: 200, description: "OpenAPI 3.1, generated from the contract's zod schemas", json: OpenApiDocument },
  }),
  getMetrics: op({
    method: "get",
    path: "/api/metrics",
    summary: "Prometheus metrics",
    description:
      "Scrape endpoint in the Prometheus text format (counts and environment names, no object content): the bearer token from DRIFTWATCH_METRICS_TOKEN, or a signed-in session.",
    tag: "system",
    access: "public",
    ok: { status: 200, description: "Metrics", other: { "text/plain": "Prometheus text format" } },
    also: { 503: { description: "The database did not answer", other: { "text/plain": "A comment saying so" } } },
    errors: { 401: "Neither the metrics token nor a session" },
  }),
  receiveGitWebhook: op({
    method: "post",
    path: "/api/webhooks/git",
    summary: "Git push webhook",
    description:
      "From GitHub, GitLab, Gitea/Forgejo, or anything signing with `X-Driftwatch-Signature`; queues a collection of the environments that follow the pushed branch. The signature is the credential (no session).",
    tag: "system",
    access: "public",
    body: z.record(z.string(), z.unknown()).describe("The provider's push event"),
    ok: { status: 202, description: "Collections queued", json: WebhookQueued },
    also: { 200: { description: "Verified, nothing to do", json: WebhookIgnored } },
    errors: { 400: "Not JSON, or no delivery id", 401: "Bad or missing signature", 409: "This delivery was already received", 413: "Body too large", 429: "Too many requests from this address" },
  }),
  getHealth: op({
    method: "get",
    path: "/api/health",
    summary: "Readiness with collection counts",
    description: "Kept for existing monitors; probes use /api/health/live and /api/health/ready.",
    tag: "system",
    access: "public",
    ok: { status: 200, description: "Ready", json: Health },
    also: { 503: { description: "Not ready", json: Health } },
  }),
  getLiveness: op({
    method: "get",
    path: "/api/health/live",
    summary: "Liveness: the process answers; never touches the database",
    tag: "system",
    access: "public",
    ok: { status: 200, description: "Alive", json: Liveness },
  }),
  getReadiness: op({
    method: "get",
    path: "/api/health/ready",
    summary: "Readiness: database reachable through the pool and schema current (cached up to 2 s; a reason code when not ready)",
    tag: "system",
    access: "public",
    ok: { status: 200, description: "Ready", json: Readiness },
    also: { 503: { description: "Not ready", json: Readiness } },
  }),
} satisfies Record<string, Operation>;

export type OperationId = keyof typeof operations;

/** The JSON body of an operation's success answer. */
export type OkBody<O extends Operation> = O["ok"] extends { json: z.ZodType } ? z.output<O["ok"]["json"]> : never;

export const CSRF_REQUIREMENT = CSRF_NOTE;

/** Every documented answer of an operation, by status: its own, and the error envelope's for what its access and input imply. */
export function answersOf(o: Operation): Record<number, Answer> {
  const errors: Record<number, string> = {};
  const hasInput = Boolean(o.params || o.query || o.body);
  if (hasInput) errors[400] = "Bad input: the message says which parameter and why";
  if (o.access !== "public") errors[401] = "Not signed in";
  if (o.access !== "public" && o.access !== "signed-in") {
    errors[400] = "Bad input: the message says which parameter and why";
    errors[403] = "Without the role this needs, the CSRF token, or from another site";
    errors[413] = "A request body over the limit";
    errors[415] = "A request body that is not sent as JSON (content-type: application/json)";
  }
  Object.assign(errors, o.errors ?? {});
  const answers: Record<number, Answer> = { [o.ok.status]: o.ok, ...(o.also ?? {}) };
  for (const [status, description] of Object.entries(errors)) answers[Number(status)] ??= { description, json: ApiErrorBody };
  return answers;
}
