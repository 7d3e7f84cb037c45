// An unauthenticated flood as an attacker sends it, through the real route
// handlers in this process: bad password sign-ins and OIDC callback errors
// from many addresses at once. Used by test/integration/auth-flood.test.ts
// and bench/auth-flood.ts.
import { NextRequest } from "next/server";
import { POST as signin } from "@/app/api/auth/signin/route";
import { GET as oidcCallback } from "@/app/api/auth/oidc/callback/route";

export interface FloodPlan {
  signIns: number;
  callbackErrors: number;
  /** Addresses the sign-ins come from (round robin). */
  signInAddresses: number;
  /** Addresses the callback errors come from (round robin). */
  callbackAddresses: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Usernames tried in turn; the first is the one under attack. */
  usernames: string[];
  /** Second octet of every address (10.N.…), so two floods in one process do not share addresses. */
  octet: number;
}

export interface FloodOutcome {
  /** Status → count, per kind. */
  signIn: Record<number, number>;
  callback: Record<number, number>;
  /** Callback answers that were a redirect to sign-in saying the address is throttled. */
  callbackThrottled: number;
  ms: number;
}

/** Sign-ins come from 10.N.1.x, callbacks from 10.N.2.x onwards. */
export const signInAddress = (octet: number, i: number) => `10.${octet}.1.${i % 250}`;
const callbackAddress = (octet: number, i: number) => `10.${octet}.${2 + (Math.floor(i / 250) % 250)}.${i % 250}`;

export function signInRequest(body: unknown, ip: string): NextRequest {
  return new NextRequest("http://localhost/api/auth/signin", {
    method: "POST",
    headers: { host: "localhost", "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify(body),
  });
}

function callbackRequest(i: number, ip: string): NextRequest {
  // Either a provider error or a code without the browser's transaction cookie: both are callback errors.
  const query = i % 2 === 0 ? `error=access_denied&state=s${i}` : `code=c${i}&state=s${i}`;
  return new NextRequest(`http://localhost/api/auth/oidc/callback?${query}`, { headers: { host: "localhost", "x-forwarded-for": ip } });
}

export async function flood(plan: FloodPlan): Promise<FloodOutcome> {
  const started = performance.now();
  const out: FloodOutcome = { signIn: {}, callback: {}, callbackThrottled: 0, ms: 0 };
  const jobs: Array<() => Promise<void>> = [];
  const total = Math.max(plan.signIns, plan.callbackErrors);
  // Interleaved, as a real flood of both kinds would arrive.
  for (let i = 0; i < total; i++) {
    if (i < plan.signIns) {
      jobs.push(async () => {
        const ip = signInAddress(plan.octet, i % plan.signInAddresses);
        const username = plan.usernames[i % plan.usernames.length] as string;
        const res = await signin(signInRequest({ username, password: `guess-${i}-wrong-password` }, ip));
        out.signIn[res.status] = (out.signIn[res.status] ?? 0) + 1;
      });
    }
    if (i < plan.callbackErrors) {
      jobs.push(async () => {
        const res = await oidcCallback(callbackRequest(i, callbackAddress(plan.octet, i % plan.callbackAddresses)));
        out.callback[res.status] = (out.callback[res.status] ?? 0) + 1;
        if (/too\+many\+sign-in\+attempts|too%20many%20sign-in%20attempts/.test(res.headers.get("location") ?? "")) out.callbackThrottled++;
      });
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: plan.concurrency }, async () => {
      while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
    }),
  );
  out.ms = performance.now() - started;
  return out;
}
