// The JSON API, described by hand as OpenAPI 3.1 and served at
// /api/openapi.json. A unit test walks app/api and fails when a route is
// missing here, so the document cannot silently fall behind the code.

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: "null" }] });
const str: Schema = { type: "string" };
const int: Schema = { type: "integer" };
const bool: Schema = { type: "boolean" };
const time: Schema = { type: "string", format: "date-time", description: "ISO 8601, UTC" };
const arr = (items: Schema): Schema => ({ type: "array", items });
const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({ type: "object", properties, required });

const json = (schema: Schema, description = "OK") => ({ description, content: { "application/json": { schema } } });
const error = (description: string) => json(ref("Error"), description);

const E400 = { "400": error("Bad input: the message says which parameter and why") };
const E401 = { "401": error("Not signed in") };
const E403 = { "403": error("Signed in without the role this needs") };
const E404 = (what: string) => ({ "404": error(`Unknown ${what}`) });
const E409 = (why: string) => ({ "409": error(why) });
const E415 = { "415": error("A request body that is not sent as JSON (content-type: application/json)") };

const pathParam = (name: string, description: string, schema: Schema = str) => ({ name, in: "path", required: true, description, schema });
const queryParam = (name: string, description: string, schema: Schema = str) => ({ name, in: "query", required: false, description, schema });

const envParam = pathParam("env", "Environment name", { type: "string", pattern: "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", examples: ["production"] });

const readOp = (summary: string, description: string, parameters: unknown[], ok: Schema, errors: Record<string, unknown>, tags: string[]) => ({
  get: { summary, description, tags, parameters, responses: { "200": json(ok), ...errors, ...E401 } },
});

const mutationOp = (summary: string, description: string, body: Schema | null, ok: Schema, tags: string[], parameters: unknown[] = [], extra: Record<string, unknown> = {}, status = "200") => ({
  summary,
  description: `${description}\n\nRequires a session cookie and the CSRF token (from \`GET /api/auth/session\`) in the \`x-csrf-token\` header.`,
  tags,
  parameters,
  ...(body ? { requestBody: { required: false, content: { "application/json": { schema: body } } } } : {}),
  responses: { [status]: json(ok), ...E400, ...E401, ...E403, ...E415, ...extra },
});
const mutation = (...args: Parameters<typeof mutationOp>) => ({ post: mutationOp(...args) });
const loose = (description: string): Schema => ({ type: "object", description });
const idParam = (what: string) => pathParam("id", `${what} id (UUID)`, { type: "string", format: "uuid" });

const revision = obj({ sha: str, shortSha: str, message: nullable(str), authorName: nullable(str), committedAt: nullable(time) });
const condition = obj({ object: str, type: str, status: str, reason: nullable(str), message: nullable(str), lastTransitionTime: nullable(time) });
const userRef = obj({ id: str, username: str, displayName: nullable(str) });
const pause = obj({
  id: str,
  environment: str,
  controllerRef: nullable(str),
  origin: { enum: ["dashboard", "detected"] },
  unattributed: bool,
  createdBy: nullable(ref("UserRef")),
  owner: nullable(ref("UserRef")),
  reason: nullable(str),
  incidentUrl: nullable(str),
  startedAt: time,
  expiresAt: nullable(time),
  expired: bool,
  executed: bool,
  detectedManager: nullable(str),
  detectedAt: nullable(time),
  endedAt: nullable(time),
  endReason: nullable(str),
});
const alert = obj({ id: str, environment: nullable(str), type: str, severity: str, title: str, openedAt: time, updatedAt: time, runbook: nullable(str), summary: nullable(str) });
const counts = obj({ total: int, Modified: int, Missing: int, Extra: int, unowned: int });
const run = obj({
  id: int,
  environment: str,
  status: { enum: ["queued", "running", "succeeded", "partial", "failed"] },
  trigger: str,
  requestedBy: nullable(str),
  queuedAt: time,
  startedAt: nullable(time),
  finishedAt: nullable(time),
  progress: nullable(obj({ phase: { enum: ["git", "render", "discover", "list", "compare", "store", "done"] }, objectsRead: int, kindsDone: int, kindsTotal: int })),
  stats: nullable({ type: "object" }),
  errors: arr(obj({ category: str, message: str, path: str, line: int, resource: str, severity: { enum: ["error", "warning"] } }, ["category", "message"])),
});
const summaryProps = {
  name: str,
  description: nullable(str),
  position: int,
  status: { enum: ["In sync", "Drifted", "Stale", "Paused", "Collection failing", "Not collected yet"] },
  statusReason: str,
  flags: arr(obj({ status: str, reason: str })),
  source: obj({ repository: nullable(str), branch: str, path: str, render: nullable(str) }),
  approved: nullable(ref("Revision")),
  applied: nullable(ref("Revision")),
  appliedSource: nullable({ enum: ["controller", "inferred"] }),
  appliedSince: nullable(time),
  behind: nullable(obj({ since: time, commits: int })),
  drift: ref("DriftCounts"),
  controller: nullable(
    obj({
      type: { enum: ["flux", "argocd"] },
      ref: str,
      found: bool,
      ready: { enum: ["True", "False", "Unknown"] },
      health: nullable(str),
      suspended: bool,
      suspendedBy: nullable(obj({ manager: str, time: nullable(time) })),
      failure: nullable(ref("Condition")),
      conditions: arr(ref("Condition")),
    }),
  ),
  objectCount: int,
  lastCollectedAt: nullable(time),
  lastGoodCollectedAt: nullable(time),
  lastError: nullable(obj({ category: str, message: str, at: time, runId: int })),
  alerts: arr(ref("Alert")),
  pauses: arr(ref("Pause")),
  activeRun: nullable(ref("Run")),
  intervalMs: int,
  staleAfterMs: int,
};
const change = obj(
  {
    path: arr({ type: ["string", "integer"] }),
    display: str,
    kind: { enum: ["changed", "added", "removed", "unpruned"] },
    desired: { description: "Git's value; \"(hidden)\" for Secret data" },
    live: { description: "Live value; \"(hidden)\" for Secret data" },
    attribution: obj({ manager: nullable(str), operation: nullable(str), subresource: nullable(str), time: nullable(time), class: { enum: ["human", "controller", "system", "unknown"] } }),
    masked: bool,
  },
  ["path", "display", "kind", "attribution"],
);
const driftItem = obj({
  id: str,
  environment: str,
  key: str,
  apiVersion: str,
  group: str,
  kind: str,
  namespace: str,
  name: str,
  type: { enum: ["Modified", "Missing", "Extra"] },
  changes: arr(ref("Change")),
  attribution: obj({ manager: nullable(str), class: nullable(str), time: nullable(time) }),
  ignored: { type: "object", additionalProperties: int, description: "Differences hidden per ignore rule" },
  conflict: nullable(obj({ path: nullable(str), managers: arr(str), flips: int })),
  openedAt: time,
  lastSeenAt: time,
  resolvedAt: nullable(time),
  resolution: nullable({ enum: ["reverted", "adopted", "deleted", "ignored"] }),
  resolutionSha: nullable(str),
  reopenCount: int,
  claim: nullable(obj({ id: str, owner: ref("UserRef"), reason: str, incidentUrl: nullable(str), expiresAt: time, expired: bool, returnPath: { enum: ["revert", "adopt"] } })),
});
const badge = obj({
  environment: str,
  position: int,
  state: { enum: ["live", "pending", "not-approved", "unknown"] },
  since: nullable(time),
  through: nullable(ref("Revision")),
  viaDescendant: { type: "boolean", description: "Live through a later applied commit that contains this one" },
  inferred: { type: "boolean", description: "The applied revision was inferred from live state (no controller reports one)" },
  firstLiveAt: nullable(time),
  reason: nullable(str),
  reasonSince: nullable(time),
});
const timelineEvent = obj({
  id: str,
  at: time,
  type: { enum: ["commit", "approved", "applied", "drift", "pause", "claim", "alert", "collection", "access"] },
  action: str,
  environment: nullable(str),
  environments: arr(str),
  actor: str,
  title: str,
  detail: nullable(str),
  reason: nullable(str),
  sha: nullable(str),
  link: nullable(str),
});

const expiryBody = {
  expiresAt: { ...time, description: "Absolute expiry; or give `duration`" },
  duration: { type: "string", description: 'Duration from now such as "90m", "4h", "2d"' },
};

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Driftwatch API",
      version: "1",
      description:
        "What differs between Git and each environment's cluster, who changed it, and which commit is live where. " +
        "All times are ISO 8601 UTC. Errors are `{ error: { code, message } }`: bad input is a 400 with a message, an unknown environment, object, commit or run a 404. " +
        "Reads need a session with role viewer or higher; mutations need operator (admin for users), the session cookie and the CSRF header.",
    },
    servers: [{ url: "/" }],
    tags: [
      { name: "environments" },
      { name: "drift" },
      { name: "lineage" },
      { name: "timeline" },
      { name: "runs" },
      { name: "pauses" },
      { name: "claims" },
      { name: "audit" },
      { name: "auth" },
      { name: "system" },
    ],
    paths: {
      "/api/environments": readOp(
        "List environments",
        "Every environment in promotion order, with status, approved vs applied revision, drift counts, controller health, last collection, open alerts, active pauses.",
        [],
        obj({ environments: arr(ref("EnvironmentSummary")), now: time, config: obj({ path: str, exists: bool, declared: int }) }),
        {},
        ["environments"],
      ),
      "/api/environments/{env}": readOp(
        "One environment",
        "The environment card plus rollout health, last run, ignored-by-rule counts, rollback guidance (previous applied revisions with the exact `git revert` range) and the kinds/namespaces that have drift.",
        [envParam],
        ref("EnvironmentDetail"),
        { ...E400, ...E404("environment") },
        ["environments"],
      ),
      "/api/environments/{env}/drift": readOp(
        "Drift items of an environment",
        "Filtered, searched, sorted, keyset-paginated: pass `nextCursor` back as `cursor` with the same sort for the next page.",
        [
          envParam,
          queryParam("kind", "Comma-separated kinds"),
          queryParam("namespace", "Comma-separated namespaces; `_` for cluster-scoped"),
          queryParam("type", "Comma-separated: Modified, Missing, Extra"),
          queryParam("owner", "owned (an active claim) or unowned", { enum: ["owned", "unowned"] }),
          queryParam("actor", "Comma-separated manager classes: human, controller, system, unknown"),
          queryParam("q", "Text in the key, the manager or a changed field"),
          queryParam("status", "open (default), resolved or all", { enum: ["open", "resolved", "all"], default: "open" }),
          queryParam("sort", "Sort column", { enum: ["key", "kind", "namespace", "name", "type", "openedAt", "lastSeenAt", "attributionTime", "manager"], default: "key" }),
          queryParam("dir", "Sort direction", { enum: ["asc", "desc"], default: "asc" }),
          queryParam("limit", "Page size", { type: "integer", minimum: 1, maximum: 500, default: 50 }),
          queryParam("cursor", "From the previous page's nextCursor"),
        ],
        obj({
          environment: str,
          items: arr(ref("DriftItem")),
          nextCursor: nullable(str),
          total: { ...nullable(int), description: "Matching items over all pages; first page only" },
          counts: { ...nullable({ allOf: [ref("DriftCounts"), obj({ human: int, controller: int })] }), description: "Open drift ignoring the filters; first page only" },
        }),
        { ...E400, ...E404("environment") },
        ["drift"],
      ),
      "/api/environments/{env}/objects/{group}/{kind}/{namespace}/{name}": readOp(
        "One object: desired vs live",
        "Normalised side-by-side YAML rows with the changed lines marked and each change's attribution, the drift history and the Git file and commit. Secret values are always `(hidden)`.",
        [
          envParam,
          pathParam("group", "API group; `_` for the core group", { type: "string", examples: ["apps"] }),
          pathParam("kind", "Kind, e.g. Deployment", { type: "string", examples: ["Deployment"] }),
          pathParam("namespace", "Namespace; `_` for cluster-scoped objects", { type: "string", examples: ["shop"] }),
          pathParam("name", "Object name", { type: "string", examples: ["api"] }),
        ],
        ref("ObjectDetail"),
        { ...E400, ...E404("environment or object") },
        ["drift"],
      ),
      "/api/commits/{sha}": readOp(
        "Where is this commit live?",
        "Full or short sha. Per environment: live (since when, through which applied revision, and whether through a later commit that contains it), pending (and why), or not approved yet; plus time to promote per hop. A short sha matching several commits answers `match: ambiguous` with the candidates.",
        [pathParam("sha", "4 to 64 hex digits", { type: "string", pattern: "^[0-9a-fA-F]{4,64}$" })],
        {
          oneOf: [
            obj({ match: { const: "exact" }, commit: ref("Commit") }),
            obj({ match: { const: "ambiguous" }, candidates: arr(ref("Revision")) }),
          ],
        },
        { ...E400, ...E404("commit") },
        ["lineage"],
      ),
      "/api/lineage": readOp(
        "Commits of each followed branch with a badge per environment",
        "Newest commits that change an environment's path, per repository and branch.",
        [queryParam("limit", "Commits per branch", { type: "integer", minimum: 1, maximum: 200, default: 30 })],
        ref("Lineage"),
        E400,
        ["lineage"],
      ),
      "/api/timeline": {
        get: {
          summary: "Incident timeline",
          description:
            "Commits, applied-revision changes, drift opened/resolved, pauses, claims, alerts and collection failures in one stream, oldest first. " +
            "With `format`, a download of the same events: CSV, JSON, or Markdown that reads as an incident write-up (times in UTC).",
          tags: ["timeline"],
          parameters: [
            queryParam("environment", "One environment"),
            queryParam("type", "Comma-separated: commit, approved, applied, drift, pause, claim, alert, collection, access"),
            queryParam("from", "Start (ISO 8601); default 24 h before `to`", time),
            queryParam("to", "End (ISO 8601); default now", time),
            queryParam("limit", "At most this many events (the newest are kept)", { type: "integer", minimum: 1, maximum: 5000, default: 1000 }),
            queryParam("format", "Download format", { enum: ["json", "csv", "md"] }),
          ],
          responses: {
            "200": {
              description: "The timeline, or a download with `format`",
              content: {
                "application/json": { schema: { anyOf: [ref("Timeline"), ref("TimelineDownload")] } },
                "text/csv": { schema: str },
                "text/markdown": { schema: str },
              },
            },
            ...E400,
            ...E401,
            ...E404("environment"),
          },
        },
      },
      "/api/compare": readOp(
        "Compare two environments",
        "Object by object and field by field: live vs live, or desired (Git) vs desired. Identical objects are counted, differing ones listed with their fields.",
        [
          { ...queryParam("from", "First environment", { type: "string", minLength: 1, examples: ["staging"] }), required: true },
          { ...queryParam("to", "Second environment", { type: "string", minLength: 1, examples: ["production"] }), required: true },
          queryParam("mode", "live (default) or desired", { enum: ["live", "desired"], default: "live" }),
          queryParam("kind", "Only this kind"),
          queryParam("limit", "At most this many objects", { type: "integer", minimum: 1, maximum: 2000, default: 500 }),
        ],
        ref("Compare"),
        { ...E400, ...E404("environment") },
        ["environments"],
      ),
      "/api/delivery-metrics": readOp(
        "Delivery metrics",
        "Lead time commit → live per hop, drift lifetime distribution, manual edits per week by manager, pauses and their durations, stale time per environment.",
        [queryParam("days", "Window in days", { type: "integer", minimum: 1, maximum: 365, default: 30 })],
        ref("Metrics"),
        E400,
        ["environments"],
      ),
      "/api/runs/{id}": readOp("A collection run", "Status and progress (objects read so far) of a run, e.g. one started by Refresh now.", [pathParam("id", "Run id", int)], ref("Run"), { ...E400, ...E404("run") }, ["runs"]),
      "/api/environments/{env}/refresh": mutation(
        "Refresh now",
        "Queues a collection of the environment at once (role operator). Poll `/api/runs/{runId}` for progress.",
        null,
        obj({ runId: int }),
        ["runs"],
        [envParam],
        E404("environment"),
        "202",
      ),
      "/api/pauses": {
        get: {
          summary: "List pauses",
          tags: ["pauses"],
          parameters: [queryParam("environment", "One environment"), queryParam("active", "Only active (true) or ended (false)", { enum: ["true", "false"] }), queryParam("limit", "At most", int)],
          responses: { "200": json(obj({ pauses: arr(loose("A pause: who, why, since, until, origin, whether executed on the controller")) })), ...E400, ...E401 },
        },
        post: mutationOp(
          "Pause reconciliation",
          "Of an environment or one controller object (role operator). Executed on the controller where a write credential is configured; production may require `confirm` (the environment's name).",
          obj({ environment: str, reason: { type: "string", minLength: 3 }, ...expiryBody, incidentUrl: nullable(str), confirm: str, controllerRef: str }, ["environment", "reason"]),
          obj({ pause: loose("The pause created") }),
          ["pauses"],
          [],
          { ...E404("environment"), "409": error("Already paused") },
          "201",
        ),
      },
      "/api/pauses/policy": readOp(
        "What a pause needs in an environment",
        "Whether typing the name to confirm is required, the longest expiry, and whether Driftwatch performs it on the controller.",
        [{ ...queryParam("environment", "Environment name"), required: true }],
        obj({ environment: str, confirmPause: bool, maxPauseMs: int, autoResume: bool, controllerRef: nullable(str), executes: bool }),
        { ...E400, ...E404("environment") },
        ["pauses"],
      ),
      "/api/pauses/{id}": readOp("One pause", "", [idParam("Pause")], obj({ pause: loose("The pause") }), { ...E400, ...E404("pause") }, ["pauses"]),
      "/api/pauses/{id}/resume": mutation("Resume reconciliation", "Ends a pause and restores the controller's previous policy (role operator).", obj({ reason: str }, []), obj({ pause: loose("The ended pause") }), ["pauses"], [idParam("Pause")], { ...E404("pause"), ...E409("The pause has already ended") }),
      "/api/pauses/{id}/ownership": mutation(
        "Take ownership of a detected pause",
        "An unattributed pause (seen suspended in the cluster with no record) gets an owner, a reason and an expiry (role operator).",
        obj({ reason: { type: "string", minLength: 3 }, ...expiryBody, incidentUrl: nullable(str) }, ["reason"]),
        obj({ pause: loose("The pause, now owned") }),
        ["pauses"],
        [idParam("Pause")],
        { ...E404("pause"), ...E409("The pause has already ended") },
      ),
      "/api/claims": {
        get: {
          summary: "List claims (temporary divergences)",
          tags: ["claims"],
          parameters: [
            queryParam("environment", "One environment"),
            queryParam("status", "Claim status", { enum: ["active", "released", "resolved", "transferred"] }),
            queryParam("owner", "Owner's username"),
            queryParam("driftItemId", "Claims covering this drift item", { type: "string", format: "uuid" }),
            queryParam("limit", "At most", int),
          ],
          responses: { "200": json(obj({ claims: arr(loose("A claim with its drift items")) })), ...E400, ...E401 },
        },
        post: mutationOp(
          "Claim drift items",
          "A temporary divergence: owner (yourself when absent), reason, incident link, expiry and return path (role operator).",
          obj({ driftItemIds: arr({ type: "string", format: "uuid" }), owner: str, reason: { type: "string", minLength: 3 }, incidentUrl: nullable(str), ...expiryBody, returnPath: { enum: ["revert", "adopt"] } }, ["driftItemIds", "reason", "returnPath"]),
          obj({ claim: loose("The claim created") }),
          ["claims"],
          [],
          { "409": error("A drift item is already claimed") },
          "201",
        ),
      },
      "/api/claims/{id}": readOp("One claim", "", [idParam("Claim")], obj({ claim: loose("The claim with its drift items") }), { ...E400, ...E404("claim") }, ["claims"]),
      "/api/claims/{id}/release": mutation("Release a claim", "The drift becomes unowned again (role operator).", obj({ reason: str }, []), obj({ claim: loose("The released claim") }), ["claims"], [idParam("Claim")], { ...E404("claim"), ...E409("The claim is no longer active") }),
      "/api/claims/{id}/transfer": mutation("Transfer a claim", "To another user (role operator).", obj({ owner: str, reason: str }, ["owner"]), obj({ claim: loose("The claim, new owner") }), ["claims"], [idParam("Claim")], { ...E404("claim"), ...E409("The claim is no longer active, or that user owns it already") }),
      "/api/claims/{id}/adopt.patch": {
        get: {
          summary: "Adopt into Git: the patch",
          description: "The change that makes Git match live, for the owner to commit through the normal review: a unified diff (default) or, with `format=json`, the files and notes.",
          tags: ["claims"],
          parameters: [idParam("Claim"), queryParam("format", "patch (default) or json", { enum: ["patch", "json"] })],
          responses: {
            "200": { description: "The patch", content: { "text/x-diff": { schema: str }, "application/json": { schema: loose("Files, patch and notes") } } },
            ...E400,
            ...E401,
            ...E404("claim"),
          },
        },
      },
      "/api/alerts": readOp(
        "Alerts",
        "Open and resolved alerts with their runbooks.",
        [queryParam("open", "Only open (true) or resolved (false)", { enum: ["true", "false"] }), queryParam("environment", "One environment"), queryParam("limit", "At most", int)],
        obj({ alerts: arr(loose("An alert with its runbook")) }),
        E400,
        ["environments"],
      ),
      "/api/alerts/refresh": mutation("Re-evaluate alerts now", "Instead of waiting for the next collection (role operator).", null, obj({ opened: int, updated: int, resolved: int }), ["environments"]),
      "/api/audit": {
        get: {
          summary: "Audit log",
          description: "A page of events (JSON), or every matching event as CSV or JSON lines with `format`.",
          tags: ["audit"],
          parameters: [
            queryParam("from", "Start", time),
            queryParam("to", "End", time),
            queryParam("actor", "Actor name contains"),
            queryParam("action", "Exact action, or a family such as `pause.`"),
            queryParam("environment", "One environment"),
            queryParam("targetType", "Target type"),
            queryParam("targetId", "Target id"),
            queryParam("q", "Text in reason, target or actor"),
            queryParam("format", "json (default), csv or jsonl", { enum: ["json", "csv", "jsonl"] }),
            queryParam("before", "Page before this event id"),
            queryParam("limit", "Page size (json)", { type: "integer", minimum: 1, maximum: 500, default: 100 }),
          ],
          responses: {
            "200": { description: "Events", content: { "application/json": { schema: loose("events and the next page") }, "text/csv": { schema: str }, "application/x-ndjson": { schema: str } } },
            ...E400,
            ...E401,
          },
        },
      },
      "/api/audit/verify": readOp("Verify the audit chain", "Recomputes the hash chain and names the first broken link.", [], loose("ok, checked count, and the first broken event if any"), {}, ["audit"]),
      "/api/auth/session": { get: { summary: "Who is signed in", description: "The user, the CSRF token mutations must send, and the sign-in methods on offer.", tags: ["auth"], security: [], responses: { "200": json(obj({ user: nullable(loose("The user")), csrfToken: nullable(str), expiresAt: nullable(time), methods: obj({ local: bool, oidc: bool }) })) } } },
      "/api/auth/signin": {
        post: {
          summary: "Password sign-in",
          tags: ["auth"],
          security: [],
          requestBody: { required: true, content: { "application/json": { schema: obj({ username: str, password: str, next: str }, ["username", "password"]) } } },
          responses: { "200": json(loose("The user; sets the session and CSRF cookies")), ...E400, "401": error("Wrong username or password"), "403": error("Foreign origin or password sign-in off"), ...E415, "429": error("Too many failed sign-ins") },
        },
      },
      "/api/auth/signout": mutation("Sign out", "Ends the session (any signed-in user).", null, obj({ ok: bool }), ["auth"]),
      "/api/auth/oidc/start": { get: { summary: "Single sign-on, step 1", description: "Redirects to the OpenID provider (PKCE, state, nonce).", tags: ["auth"], security: [], parameters: [queryParam("next", "Where to return afterwards")], responses: { "302": { description: "To the provider" } } } },
      "/api/auth/oidc/callback": { get: { summary: "Single sign-on, step 2", description: "The provider sends the browser back here with a code.", tags: ["auth"], security: [], responses: { "302": { description: "Signed in, to `next`; or to /signin with the error" } } } },
      "/api/users": {
        get: { summary: "Users", description: "Admins see every field; others only names (to pick a claim's owner).", tags: ["auth"], responses: { "200": json(obj({ users: arr(loose("A user")) })), ...E401 } },
        post: mutationOp("Create a local user", "Role admin.", obj({ username: str, role: { enum: ["viewer", "operator", "admin"] }, password: str, displayName: str }, ["username", "role", "password"]), obj({ user: loose("The user") }), ["auth"], [], { "409": error("Username taken") }, "201"),
      },
      "/api/users/{username}": {
        patch: mutationOp(
          "Change a user",
          "Role, password, display name or disabled state; their sessions end (role admin).",
          obj({ role: { enum: ["viewer", "operator", "admin"] }, password: str, disabled: bool, displayName: nullable(str) }, []),
          obj({ user: loose("The user") }),
          ["auth"],
          [pathParam("username", "Username")],
          { ...E404("user"), ...E409("That would leave no admin") },
        ),
      },
      "/api/openapi.json": { get: { summary: "This document", tags: ["system"], responses: { "200": json({ type: "object" }) } } },
      "/api/metrics": {
        get: {
          summary: "Prometheus metrics",
          description: "Scrape endpoint in the Prometheus text format (counts and environment names, no object content). Public like /api/health; restrict it at the ingress on untrusted networks.",
          tags: ["system"],
          security: [],
          responses: { "200": { description: "Metrics", content: { "text/plain": { schema: str } } }, "503": { description: "The database did not answer", content: { "text/plain": { schema: str } } } },
        },
      },
      "/api/webhooks/git": {
        post: {
          summary: "Git push webhook",
          description: "From GitHub, GitLab, Gitea/Forgejo, or anything signing with `X-Driftwatch-Signature`; queues a collection of the environments that follow the pushed branch. The signature is the credential (no session).",
          tags: ["system"],
          security: [],
          requestBody: { required: true, content: { "application/json": { schema: loose("The provider's push event") } } },
          responses: { "200": json(loose("What was queued")), "202": json(loose("Accepted")), ...E400, "401": error("Bad or missing signature"), ...E409("This delivery id was already received"), "413": error("Body too large"), "429": error("Too many requests from this address") },
        },
      },
      "/api/health": { get: { summary: "Readiness with collection counts (kept for existing monitors; probes use /api/health/live and /api/health/ready)", tags: ["system"], security: [], responses: { "200": json({ type: "object" }), "503": json({ type: "object" }) } } },
      "/api/health/live": { get: { summary: "Liveness: the process answers; never touches the database", tags: ["system"], security: [], responses: { "200": json({ type: "object" }) } } },
      "/api/health/ready": { get: { summary: "Readiness: database reachable through the pool and schema current (cached up to 2 s; a reason code when not ready)", tags: ["system"], security: [], responses: { "200": json({ type: "object" }), "503": json({ type: "object" }) } } },
    },
    components: {
      schemas: {
        Error: obj({ error: obj({ code: str, message: str, details: {} }, ["code", "message"]) }),
        Revision: revision,
        Condition: condition,
        UserRef: userRef,
        Pause: pause,
        Alert: alert,
        Run: run,
        DriftCounts: counts,
        EnvironmentSummary: obj(summaryProps),
        EnvironmentDetail: {
          allOf: [
            ref("EnvironmentSummary"),
            obj({
              rollout: arr({ type: "object" }),
              lastRun: nullable(ref("Run")),
              ignored: obj({ total: nullable(int), byRule: { type: "object", additionalProperties: int } }),
              rollback: obj({
                current: nullable(ref("Revision")),
                targets: arr(
                  obj({
                    revision: ref("Revision"),
                    source: str,
                    firstSeenAt: time,
                    endedAt: nullable(time),
                    revertCommand: nullable({ type: "string", description: "git revert --no-edit <target>..<current>" }),
                    commits: int,
                    touchesOtherPaths: int,
                    mergeCommits: int,
                    restoreCommand: str,
                  }),
                ),
              }),
              facets: obj({ kinds: arr(str), namespaces: arr(str) }),
              now: time,
            }),
          ],
        },
        Change: change,
        DriftItem: driftItem,
        ObjectDetail: obj({
          environment: str,
          key: str,
          group: str,
          kind: str,
          namespace: str,
          name: str,
          apiVersion: str,
          desired: nullable(obj({ yaml: str, revision: nullable(ref("Revision")), sourcePath: str, updatedAt: time, repositoryUrl: nullable(str) })),
          live: nullable(obj({ yaml: str, resourceVersion: nullable(str), updatedAt: time })),
          rows: arr(obj({ left: nullable(obj({ line: int, text: str })), right: nullable(obj({ line: int, text: str })), kind: { enum: ["same", "changed", "removed", "added"] }, change: nullable(int) })),
          changes: arr(ref("Change")),
          drift: nullable(ref("DriftItem")),
          history: arr(ref("DriftItem")),
          secret: bool,
          now: time,
        }),
        Badge: badge,
        Commit: obj({
          revision: { allOf: [ref("Revision"), obj({ parents: arr(str), authorEmail: str, fullMessage: str, changedPaths: arr(str) })] },
          repository: str,
          environments: arr(ref("Badge")),
          hops: arr(obj({ from: nullable(str), to: str, startedAt: nullable(time), reachedAt: nullable(time), durationMs: nullable(int) })),
        }),
        Lineage: obj({
          repositories: arr(obj({ name: str, branches: arr(obj({ branch: str, head: nullable(str), environments: arr(str), commits: arr({ allOf: [ref("Revision"), obj({ badges: arr(ref("Badge")) })] }) })) })),
          environments: arr(obj({ name: str, position: int, applied: nullable(ref("Revision")) })),
          now: time,
        }),
        TimelineEvent: timelineEvent,
        Timeline: obj({ events: arr(ref("TimelineEvent")), from: time, to: time, environment: nullable(str), types: nullable(arr(str)), truncated: bool, environments: arr(str) }),
        TimelineDownload: {
          ...obj({
            generatedAt: time,
            filter: obj({ environment: nullable(str), types: nullable(arr(str)), from: nullable(time), to: nullable(time) }),
            truncated: bool,
            events: arr(ref("TimelineEvent")),
          }),
          description: "The download of `format=json`: the events with the filter that selected them and absolute links",
        },
        Compare: obj({
          from: obj({ environment: str, revision: nullable(ref("Revision")) }),
          to: obj({ environment: str, revision: nullable(ref("Revision")) }),
          mode: { enum: ["live", "desired"] },
          objects: arr(obj({ key: str, kind: str, namespace: str, name: str, state: { enum: ["differs", "only-from", "only-to"] }, fields: arr(obj({ path: str, from: {}, to: {}, kind: { enum: ["changed", "added", "removed"] } }, ["path", "kind"])) })),
          same: int,
          differs: int,
          onlyFrom: int,
          onlyTo: int,
          truncated: bool,
          environments: arr(str),
        }),
        Metrics: obj({
          window: obj({ from: time, to: time, days: int }),
          leadTime: arr(obj({ from: nullable(str), to: str, samples: int, medianMs: nullable(int), p90Ms: nullable(int), maxMs: nullable(int) })),
          driftLifetime: obj({ buckets: arr(obj({ label: str, upToMs: nullable(int), count: int })), resolved: int, open: int, medianMs: nullable(int) }),
          manualEdits: obj({ weeks: arr(str), managers: arr(obj({ manager: str, counts: arr(int) })) }),
          pauses: arr(obj({ environment: str, controllerRef: nullable(str), origin: str, startedAt: time, endedAt: nullable(time), durationMs: int, reason: nullable(str) })),
          staleTime: arr(obj({ environment: str, totalMs: int, intervals: arr(obj({ start: time, end: time })) })),
          environments: arr(str),
        }),
      },
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "driftwatch_session" },
      },
    },
    security: [{ session: [] }],
  };
}
