// The building blocks of the API contract. Every shape a route answers with
// is a zod schema built from these; its TypeScript type is its z.infer, and
// the OpenAPI document (./openapi.ts) is generated from the same schemas.
//
// Response objects are strict: a field the contract does not name is an
// error in the contract test, so nothing leaks into an answer unnoticed
// (the generated document says `additionalProperties: false` too).
import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "@/lib/api/errors";

/** The shapes with a name of their own in the OpenAPI document (`#/components/schemas/<id>`). */
export const components = z.registry<{ id: string }>();

/** Gives a shape its name in the document. `description` is said once here, not at every use. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  const described = description ? (schema.describe(description) as T) : schema;
  components.add(described as z.ZodType, { id });
  return described;
}

/** An object answer: every field named, nothing else allowed. */
export const object = z.strictObject;

/** A time, ISO 8601. Ours are UTC with a `Z`; a cluster may report an offset. Named once, so the document states its pattern once. */
export const isoTime = named("Time", z.iso.datetime({ offset: true }), "ISO 8601: UTC with a Z from Driftwatch itself; a time a cluster reported may carry an offset");

/** A count or an id: a whole number. */
export const count = z.int();

/** Any JSON value (a manifest field, an audit event's before/after). */
export const json = z.unknown();

/**
 * True when A and B describe the same values (each assignable to the other).
 * Where a domain module owns a type that also crosses the wire (a column's
 * JSON, a pure function's result), the contract states its schema and checks
 * here, at compile time, that the two agree.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export function assertSameShape<_T extends true>(): void {}

/** The one error answer (lib/api/errors.ts, lib/api/route.ts errorResponse). */
export const ApiErrorBody = named(
  "Error",
  object({
    error: object({
      code: z.enum([...(Object.keys(ERROR_STATUS) as ErrorCode[]), "internal"]).describe("The error vocabulary of lib/api/errors.ts; internal for an unexpected failure (a 500, details in the server log)"),
      message: z.string(),
      details: json.optional(),
    }),
  }),
  "Bad input is a 400 with a message saying which parameter and why; an unknown environment, object, commit or run a 404.",
);
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;
