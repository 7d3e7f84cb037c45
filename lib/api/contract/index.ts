// The API contract: every request and answer shape as a zod schema, the
// TypeScript types as their z.infer, the operations that use them, and the
// OpenAPI document generated from both. Client components import types only.
export * from "./schema";
export * from "./params";
export * from "./environments";
export * from "./application-rollup";
export * from "./applications";
export * from "./drift";
export * from "./lineage";
export * from "./timeline";
export * from "./compare";
export * from "./metrics";
export * from "./pauses";
export * from "./claims";
export * from "./alerts";
export * from "./audit";
export * from "./search";
export * from "./auth";
export * from "./system";
