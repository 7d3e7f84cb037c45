// Who may read GET /api/metrics: Prometheus with the bearer token from
// DRIFTWATCH_METRICS_TOKEN, or anyone signed in. Without a token configured,
// only signed-in users: environment names and counts are not for the world.
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Null when allowed, else why not (for a 401). */
export function metricsAccessProblem(input: { authorization: string | null; token: string | undefined; signedIn: boolean }): string | null {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(input.authorization ?? "")?.[1];
  if (sent !== undefined && input.token !== undefined && timingSafeEqual(digest(sent), digest(input.token))) return null;
  if (input.signedIn) return null;
  if (input.token === undefined) return "metrics need a signed-in session, or a bearer token configured with DRIFTWATCH_METRICS_TOKEN";
  return sent === undefined ? "send the metrics token as Authorization: Bearer <token>" : "wrong metrics token";
}
