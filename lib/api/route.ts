// The one wrapper every route handler goes through: it authenticates, parses
// input with its operation's zod schemas (lib/api/contract/operations.ts),
// maps errors to statuses, and never lets bad input become a 500.
// Reads (jsonRoute) need a signed-in user unless the path is public;
// mutations (mutationRoute) also need a role, the CSRF token and our origin.
import { NextResponse, type NextRequest } from "next/server";
import { z } from "zod";
import { ApiError } from "./errors";
import { KiB, readJsonBounded } from "./body";
import { logger } from "@/lib/log";
import { getPrisma, type PrismaClient } from "@/lib/db";
import { isPublicPath } from "@/lib/auth/request";
import { mutationProblem, sessionFromRequest } from "@/lib/auth/guard";
import { SESSION_COOKIE, type Session, type SessionUser } from "@/lib/auth/session";
import { readSessionCached } from "@/lib/auth/session-cache";
import { changeFeed } from "@/lib/db/change-feed";
import type { Role } from "@/lib/auth/roles";
import { SHAREABLE_CACHE_CONTROL } from "./shareable";
import type { OkBody, Operation } from "./contract/operations";

type Params = Record<string, string | string[] | undefined>;

type Parsed<S> = S extends z.ZodType ? z.output<S> : Record<string, string>;
type ParamsOf<O extends Operation> = Parsed<O["params"]>;
type QueryOf<O extends Operation> = Parsed<O["query"]>;
type BodyOf<O extends Operation> = O["body"] extends z.ZodType ? z.output<O["body"]> : unknown;
/** What a handler may answer: its operation's documented success body, or a response it built itself (a download). */
type Answer<O extends Operation> = OkBody<O> | Response;

export interface RouteContext<O extends Operation> {
  req: NextRequest;
  params: ParamsOf<O>;
  query: QueryOf<O>;
  /** The signed-in user; null only on public paths. */
  user: SessionUser | null;
}

export interface MutationContext<O extends Operation> {
  req: NextRequest;
  params: ParamsOf<O>;
  body: BodyOf<O>;
  query: QueryOf<O>;
  user: SessionUser;
  session: Session;
  db: PrismaClient;
}

function issuesToMessage(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`)
    .join("; ");
}

/**
 * Postgres cannot store a NUL character in text; input carrying one is
 * refused up front with a 400 instead of failing deep inside a query. The
 * walk is iterative and depth-bounded, so hostile nesting is a 400 too.
 */
const MAX_INPUT_DEPTH = 64;
export function refuseNul<T>(value: T): T {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop() as { v: unknown; depth: number };
    if (typeof v === "string") {
      if (v.includes("\u0000")) throw new ApiError("bad_request", "input must not contain a NUL character");
      continue;
    }
    if (!v || typeof v !== "object") continue;
    if (depth >= MAX_INPUT_DEPTH) throw new ApiError("bad_request", `input is nested deeper than ${MAX_INPUT_DEPTH} levels`);
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ v: item, depth: depth + 1 });
    } else {
      for (const [k, item] of Object.entries(v)) {
        stack.push({ v: k, depth: depth + 1 }, { v: item, depth: depth + 1 });
      }
    }
  }
  return value;
}

export function errorResponse(error: unknown): NextResponse {
  if (error instanceof ApiError) {
    return NextResponse.json({ error: { code: error.code, message: error.message, details: error.details } }, { status: error.status });
  }
  if (error instanceof z.ZodError) {
    return NextResponse.json({ error: { code: "bad_request", message: issuesToMessage(error) } }, { status: 400 });
  }
  logger.error({ err: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) }, "unhandled API error");
  return NextResponse.json({ error: { code: "internal", message: "Internal error; see the server log." } }, { status: 500 });
}

const NO_STORE = { "cache-control": "no-store" };

/**
 * The JSON text of an answer, kept as long as the answer object lives: cached
 * answers (lib/dashboard/cached.ts) are the same object for every reader, so
 * each is serialised once rather than once per request.
 */
const jsonTexts = new WeakMap<object, string>();
function jsonText(body: unknown): string {
  if (body === null || typeof body !== "object") return JSON.stringify(body ?? null);
  let text = jsonTexts.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    jsonTexts.set(body, text);
  }
  return text;
}

function toResponse(body: unknown, status = 200): NextResponse {
  if (body instanceof NextResponse) return body;
  if (body instanceof Response) return new NextResponse(body.body, { status: body.status, headers: body.headers });
  return new NextResponse(jsonText(body), { status, headers: { ...NO_STORE, "content-type": "application/json" } });
}

function parseParams(op: Operation, raw: unknown): unknown {
  return op.params ? op.params.parse(raw) : raw;
}
function parseQuery(op: Operation, req: NextRequest): unknown {
  const raw = refuseNul(Object.fromEntries(req.nextUrl.searchParams.entries()));
  return op.query ? op.query.parse(raw) : raw;
}

/** A read-only JSON route for `op` (lib/api/contract/operations.ts): signed-in user (unless public), params and query validated with its schemas, errors mapped. */
export function jsonRoute<O extends Operation>(op: O, handler: (ctx: RouteContext<O>) => Promise<Answer<O>>) {
  return async (req: NextRequest, context: { params: Promise<Params> }): Promise<NextResponse> => {
    try {
      let user: SessionUser | null = null;
      if (!isPublicPath(req.nextUrl.pathname)) {
        const session = await readSessionCached(req.cookies.get(SESSION_COOKIE)?.value);
        if (!session) throw new ApiError("unauthorized", "sign in first");
        user = session.user;
      }
      const params = parseParams(op, refuseNul((await context.params) ?? {}));
      const query = parseQuery(op, req);
      const body = await handler({ req, params, query, user } as RouteContext<O>);
      return toResponse(body, op.ok.status);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/**
 * A read whose answer is the same for every signed-in reader, so the web
 * tier may serve it again to the next one (lib/server/shared-responses.ts):
 * it is signed-in only like any jsonRoute, but its handler gets only the
 * parsed params and query — not the request, not the user — so it cannot
 * answer differently for different people. Its 200 answers say so with
 * Cache-Control (lib/api/shareable.ts); errors stay no-store.
 */
export function sharedReadRoute<O extends Operation>(op: O, handler: (ctx: { params: ParamsOf<O>; query: QueryOf<O> }) => Promise<Answer<O>>) {
  const route = jsonRoute(op, ({ params, query }) => handler({ params, query }));
  return async (req: NextRequest, context: { params: Promise<Params> }): Promise<NextResponse> => {
    const res = await route(req, context);
    if (res.status === 200) res.headers.set("cache-control", SHAREABLE_CACHE_CONTROL);
    return res;
  };
}

/** What a mutation may send. */
export const DEFAULT_MAX_BODY_BYTES = 256 * KiB;

/**
 * A mutating route (POST/PUT/PATCH/DELETE) for `op`, whose access is the role
 * it needs. In this order: no session → 401; role below it → 403; missing/wrong
 * `x-csrf-token` or a foreign Origin → 403; a body over 256 KiB → 413; params,
 * query and JSON body validated with the operation's schemas → 400. The
 * handler returns the operation's success body (sent with its status) or a
 * response.
 */
export function mutationRoute<O extends Operation & { access: Role }>(op: O, handler: (ctx: MutationContext<O>) => Promise<Answer<O>>) {
  return async (req: NextRequest, context: { params: Promise<Params> }): Promise<NextResponse> => {
    try {
      const db = getPrisma();
      const session = await sessionFromRequest(db, req);
      if (!session) throw new ApiError("unauthorized", "sign in first");
      const problem = mutationProblem(req, session, op.access);
      if (problem) throw new ApiError(problem.code, problem.message);
      const params = parseParams(op, refuseNul((await context.params) ?? {}));
      const query = parseQuery(op, req);
      const raw = refuseNul(await readJsonBounded(req, DEFAULT_MAX_BODY_BYTES));
      const body = op.body ? op.body.parse(raw) : raw;
      const result = await handler({ req, params, query, body, user: session.user, session, db } as MutationContext<O>);
      // Our own reads after this (the page refetches at once) must not be answered from cache.
      changeFeed()?.touch();
      return toResponse(result, op.ok.status);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
