// The demo's story: two weeks of releases promoted test → staging →
// production by a small team, a drift that was reverted and one that was
// adopted into Git, and today's incident. Pure data: times are offsets from
// the moment the demo is first played.
import { FIRST_RELEASE, type ShopRelease } from "./shop";
import type { Author } from "./repo";

export type EnvName = "test" | "staging" | "production";
export const ENV_NAMES: EnvName[] = ["test", "staging", "production"];

export const PEOPLE = {
  alice: { name: "Alice Chen", email: "alice@shop.example" },
  bob: { name: "Bob Okafor", email: "bob@shop.example" },
  carla: { name: "Carla Diaz", email: "carla@shop.example" },
  dan: { name: "Dan Weber", email: "dan@shop.example" },
  erin: { name: "Erin Park", email: "erin@shop.example" },
} satisfies Record<string, Author>;

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export interface Feature {
  /** Offset before "now" at which it is committed to test. */
  before: number;
  author: Author;
  message: string;
  change: (r: ShopRelease) => ShopRelease;
  /** How long after test it reaches staging and production (null = not yet). */
  toStaging: number | null;
  toProduction: number | null;
}

export const FEATURES: Feature[] = [
  { before: 13 * DAY + 2 * HOUR, author: PEOPLE.bob, message: "api: 1.4.1 fixes cart total rounding", change: (r) => ({ ...r, api: "1.4.1" }), toStaging: 4 * HOUR, toProduction: 26 * HOUR },
  { before: 12 * DAY + 5 * HOUR, author: PEOPLE.carla, message: "web: 2.2.0 with the new product grid", change: (r) => ({ ...r, web: "2.2.0" }), toStaging: 3 * HOUR, toProduction: 22 * HOUR },
  { before: 11 * DAY + 1 * HOUR, author: PEOPLE.bob, message: "api: raise memory to 768Mi after OOM kills under load", change: (r) => ({ ...r, apiMemory: "768Mi" }), toStaging: 2 * HOUR, toProduction: 20 * HOUR },
  { before: 10 * DAY + 3 * HOUR, author: PEOPLE.erin, message: "api-config: CART_TTL 45m for the checkout experiment", change: (r) => ({ ...r, settings: { ...r.settings, CART_TTL: "45m" } }), toStaging: 5 * HOUR, toProduction: 24 * HOUR },
  { before: 9 * DAY + 6 * HOUR, author: PEOPLE.dan, message: "worker: 3 replicas for the holiday order queue", change: (r) => ({ ...r, workerReplicas: 3 }), toStaging: 2 * HOUR, toProduction: 21 * HOUR },
  { before: 8 * DAY + 2 * HOUR, author: PEOPLE.bob, message: "api, worker: 1.5.0 adds the order history endpoint", change: (r) => ({ ...r, api: "1.5.0", worker: "1.5.0" }), toStaging: 4 * HOUR, toProduction: 25 * HOUR },
  { before: 7 * DAY + 4 * HOUR, author: PEOPLE.carla, message: "web: 2.3.0 speeds up the product page", change: (r) => ({ ...r, web: "2.3.0" }), toStaging: 3 * HOUR, toProduction: 23 * HOUR },
  { before: 6 * DAY + 1 * HOUR, author: PEOPLE.erin, message: "api-credentials: rotate payment and database credentials", change: (r) => ({ ...r, credentialsVersion: 2 }), toStaging: 1 * HOUR, toProduction: 5 * HOUR },
  { before: 5 * DAY + 3 * HOUR, author: PEOPLE.bob, message: "api: 1.6.0 with faster product search", change: (r) => ({ ...r, api: "1.6.0" }), toStaging: 4 * HOUR, toProduction: 26 * HOUR },
  { before: 4 * DAY + 2 * HOUR, author: PEOPLE.dan, message: "api-config: LOG_LEVEL=warn to cut log volume", change: (r) => ({ ...r, settings: { ...r.settings, LOG_LEVEL: "warn" } }), toStaging: 2 * HOUR, toProduction: 22 * HOUR },
  { before: 3 * DAY + 5 * HOUR, author: PEOPLE.carla, message: "web: 2.4.0 adds dark mode", change: (r) => ({ ...r, web: "2.4.0", webReplicas: 3 }), toStaging: 3 * HOUR, toProduction: 24 * HOUR },
  { before: 1 * DAY + 6 * HOUR, author: PEOPLE.bob, message: "api: 1.7.0 moves sessions to redis", change: (r) => ({ ...r, api: "1.7.0", worker: "1.7.0" }), toStaging: 3 * HOUR, toProduction: 20 * HOUR },
  // Today: committed and promoted, but production's Flux can no longer fetch (see PRODUCTION_TOKEN_EXPIRES).
  { before: 3 * HOUR, author: PEOPLE.bob, message: "api: 1.8.0 adds checkout retries with backoff", change: (r) => ({ ...r, api: "1.8.0", apiEnv: { ...r.apiEnv, CHECKOUT_RETRIES: "3" } }), toStaging: 40 * MIN, toProduction: 100 * MIN },
  { before: 35 * MIN, author: PEOPLE.carla, message: "web: 2.5.0 shows delivery estimates", change: (r) => ({ ...r, web: "2.5.0" }), toStaging: null, toProduction: null },
];

/** The first commit: every environment starts from the same release. */
export const INITIAL = { before: 14 * DAY, author: PEOPLE.alice, message: "shop: deployment manifests for test, staging and production", release: FIRST_RELEASE };

/** The Git host rotated its deploy token; production's Flux secret still holds the old one. */
export const PRODUCTION_TOKEN_EXPIRES = 2 * HOUR;

/** Incident and history actions, each at an offset before now. */
export const ACTIONS = {
  /** Staging: someone edits a value Git owns; Argo CD's self-heal puts it back 20 minutes later. */
  stagingConfigEdit: { before: 3 * DAY - 2 * HOUR, env: "staging" as const, revertAfter: 20 * MIN },
  /** Test: a hot fix with `kubectl set env`, adopted into Git three hours later. */
  testHotfix: { before: 2 * DAY + 4 * HOUR, env: "test" as const, adoptAfter: 3 * HOUR, author: PEOPLE.dan },
  /** Production: the on-call engineer scales the api by hand during the incident. */
  productionScale: { before: 50 * MIN, env: "production" as const, replicas: 6 },
  /** Production: and adds an env var to the worker with `kubectl edit`. */
  productionWorkerEdit: { before: 45 * MIN, env: "production" as const },
  /** The scale is claimed; the worker edit stays unowned. */
  claimScale: { before: 40 * MIN, owner: "olivia", durationMs: 4 * HOUR },
  /** Staging: automated sync turned off with `kubectl patch` behind the dashboard's back. */
  stagingAutoSyncOff: { before: 30 * MIN },
  /** Test: paused through the dashboard with a reason. */
  testPause: { before: 20 * MIN, by: "dan", durationMs: 3 * HOUR },
};

export const DEMO_INCIDENT_URL = "https://status.shop.example/incidents/2026-checkout-errors";
