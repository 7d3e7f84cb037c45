// /api/openapi.json, generated: the operations of ./operations.ts with their
// zod schemas turned into JSON Schema by zod itself (z.toJSONSchema, draft
// 2020-12, the dialect of OpenAPI 3.1). Answers are described as the server
// sends them (io "output"); parameters and bodies as a client writes them
// (io "input": before defaults, coercions and transforms).
import { z } from "zod";
import { components } from "./schema";
import { answersOf, operations, CSRF_REQUIREMENT, type Operation, type OperationId } from "./operations";

type JsonSchema = Record<string, unknown>;

const ref = (id: string) => `#/components/schemas/${id}`;

/** The document states the dialect once; a component is named by its place, not by an `$id`. */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** Optional as a client writes it: absent is fine (an optional field, or one with a default). */
function optionalInInput(schema: z.ZodType): boolean {
  return schema._zod.optin === "optional";
}

function nameOf(schema: z.ZodType, where: string): string {
  const id = components.get(schema)?.id;
  if (!id) throw new Error(`${where}: an answer's schema must be named (lib/api/contract/schema.ts named())`);
  return id;
}

function parameters(o: Operation): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, object] of [["path", o.params], ["query", o.query]] as const) {
    if (!object) continue;
    const converted = z.toJSONSchema(object, { io: "input", unrepresentable: "throw" }) as { properties?: Record<string, JsonSchema>; required?: string[] };
    const required = new Set(converted.required ?? []);
    for (const [name, schema] of Object.entries(converted.properties ?? {})) {
      const { description, ...rest } = schema;
      out.push({
        name,
        in: where,
        required: where === "path" || required.has(name),
        ...(typeof description === "string" ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

const pascal = (id: string) => id[0]!.toUpperCase() + id.slice(1);

export function openApiDocument(): JsonSchema {
  // Request bodies get names of their own, as the client writes them.
  const bodies = z.registry<{ id: string }>();
  for (const [id, o] of Object.entries(operations) as Array<[OperationId, Operation]>) {
    if (o.body) bodies.add(o.body, { id: `${pascal(id)}Request` });
  }
  const answerSchemas = z.toJSONSchema(components, { io: "output", uri: ref, unrepresentable: "throw" }).schemas as Record<string, JsonSchema>;
  const bodySchemas = z.toJSONSchema(bodies, { io: "input", uri: ref, unrepresentable: "throw" }).schemas as Record<string, JsonSchema>;
  const schemas: Record<string, JsonSchema> = {};
  for (const [id, s] of [...Object.entries(answerSchemas), ...Object.entries(bodySchemas)]) {
    if (id in schemas) throw new Error(`two schemas named ${id}`);
    schemas[id] = withoutDialect(s);
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, o] of Object.entries(operations) as Array<[OperationId, Operation]>) {
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of Object.entries(answersOf(o))) {
      const content: Record<string, unknown> = {};
      if (answer.json) content["application/json"] = { schema: { $ref: ref(nameOf(answer.json, `${o.method} ${o.path} ${status}`)) } };
      for (const [type, description] of Object.entries(answer.other ?? {})) content[type] = { schema: { type: "string", description } };
      responses[status] = { description: answer.description, ...(Object.keys(content).length ? { content } : {}) };
    }
    const mutation = o.access !== "public" && o.access !== "signed-in";
    const description = [o.description, mutation ? `Role ${o.access}. ${CSRF_REQUIREMENT}` : null].filter(Boolean).join("\n\n");
    const params = parameters(o);
    (paths[o.path] ??= {})[o.method] = {
      operationId: id,
      summary: o.summary,
      ...(description ? { description } : {}),
      tags: [o.tag],
      ...(o.access === "public" ? { security: [] } : {}),
      ...(params.length ? { parameters: params } : {}),
      ...(o.body
        ? { requestBody: { required: !optionalInInput(o.body), content: { "application/json": { schema: { $ref: ref(bodies.get(o.body)!.id) } } } } }
        : {}),
      responses,
    };
  }

  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Driftwatch API",
      version: "1",
      description:
        "What differs between Git and each environment's cluster, who changed it, and which commit is live where. " +
        "All times are ISO 8601 UTC. Errors are `{ error: { code, message } }`: bad input is a 400 with a message, an unknown environment, object, commit or run a 404. " +
        "Reads need a session with role viewer or higher; mutations need operator (admin for users), the session cookie and the CSRF header.",
    },
    servers: [{ url: "/" }],
    tags: ["environments", "drift", "lineage", "timeline", "runs", "pauses", "claims", "audit", "auth", "system"].map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes: { session: { type: "apiKey", in: "cookie", name: "driftwatch_session" } } },
    security: [{ session: [] }],
  };
}
