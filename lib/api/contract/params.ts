// Path parameters shared by the API routes and the pages, so both refuse the
// same malformed input with the same message.
import { z } from "zod";

export const envName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "an environment name is lower-case letters, digits and '-'")
  .describe("Environment name");

export const envParams = z.object({ env: envName });

/** URL segments of an object key: "_" stands for the core group and for "no namespace". */
const segment = (what: string) => z.string().min(1).max(253).regex(/^[^/\s]+$/, `${what} must be one path segment`);
export const objectParams = z.object({
  env: envName,
  group: segment("group").regex(/^(_|[a-z0-9.-]+)$/, "group is a DNS-style API group, or _ for the core group").describe("API group; `_` for the core group"),
  kind: segment("kind").regex(/^[A-Za-z][A-Za-z0-9]*$/, "kind is a Kubernetes kind such as Deployment"),
  namespace: segment("namespace").describe("Namespace; `_` for cluster-scoped objects"),
  name: segment("name"),
});

export const shaParam = z.object({
  sha: z
    .string()
    .regex(/^[0-9a-fA-F]{4,64}$/, "a commit is 4 to 64 hexadecimal digits (a full or short sha)")
    .transform((s) => s.toLowerCase())
    .describe("A full or short sha: 4 to 64 hex digits"),
});

export const runParams = z.object({ id: z.coerce.number().int().positive("a run id is a positive integer").max(2_147_483_647).describe("Run id") });

export const uuidParams = (what: string) => z.object({ id: z.uuid(`not a ${what} id`).describe(`The ${what}'s id (UUID)`) });
