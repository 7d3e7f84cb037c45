// The one wrapper every route handler goes through: it parses input with zod,
// maps errors to statuses, and never lets bad input become a 500.
import { NextResponse, type NextRequest } from "next/server";
import { z } from "zod";
import { ApiError } from "./errors";
import { logger } from "@/lib/log";

type Params = Record<string, string | string[] | undefined>;

export interface RouteContext<P extends z.ZodType, Q extends z.ZodType> {
  req: NextRequest;
  params: z.infer<P>;
  query: z.infer<Q>;
}

function issuesToMessage(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.join(".") + ": " : ""}${i.message}`)
    .join("; ");
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

/** A read-only JSON route: params and query validated, errors mapped. */
export function jsonRoute<P extends z.ZodType = z.ZodType<Params>, Q extends z.ZodType = z.ZodType<Record<string, string>>>(
  schemas: { params?: P; query?: Q },
  handler: (ctx: RouteContext<P, Q>) => Promise<unknown>,
) {
  return async (req: NextRequest, context: { params: Promise<Params> }): Promise<NextResponse> => {
    try {
      const rawParams = (await context.params) ?? {};
      const params = schemas.params ? schemas.params.parse(rawParams) : rawParams;
      const rawQuery = Object.fromEntries(req.nextUrl.searchParams.entries());
      const query = schemas.query ? schemas.query.parse(rawQuery) : rawQuery;
      const body = await handler({ req, params, query } as RouteContext<P, Q>);
      return body instanceof NextResponse ? body : NextResponse.json(body, { headers: { "cache-control": "no-store" } });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
