// The one place that reads process.env (an eslint rule keeps lib/, app/ and
// components/ from reading it elsewhere). Driftwatch's own settings are parsed
// once with zod: `env()`. Two kinds of variable are not settings and are read
// when used: credentials whose variable name driftwatch.yaml chooses
// (`namedVariable`), and the whole environment handed on to child processes
// (`inheritedEnvironment`).
import path from "node:path";
import { z } from "zod";

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url().optional(),
  /**
   * The role that owns the schema and runs migrations, when DATABASE_URL is an
   * application role that owns nothing (lib/db/roles.ts). Unset: DATABASE_URL migrates.
   */
  DATABASE_MIGRATION_URL: z.string().url().optional(),
  DRIFTWATCH_CONFIG: z.string().default("driftwatch.yaml"),
  DRIFTWATCH_DATA_DIR: z.string().default(".data"),
  /** Key for session signing and keyed secret hashes; generated into the data folder when unset. */
  DRIFTWATCH_SECRET: z.string().min(32).optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  /**
   * Web server processes sharing the port (Node.js cluster). "auto": one per
   * CPU, at most 4. Development always uses one.
   */
  DRIFTWATCH_WEB_PROCESSES: z
    .union([z.literal("auto"), z.coerce.number().int().min(1).max(64)])
    .default("auto"),
  /** Run a collector inside the web server process (single-machine install). */
  DRIFTWATCH_IN_PROCESS_COLLECTOR: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  /** Binary used for `render: kustomize` (kustomize or kubectl). */
  KUSTOMIZE_BIN: z.string().optional(),
  /** Binary used for Helm sources (`render: helm`, Argo CD Helm applications): a path or a name on PATH. */
  HELM_BIN: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Objects a collector process keeps between runs (lib/collector/run-memo.ts). */
  DRIFTWATCH_COLLECTOR_CACHE_OBJECTS: z.coerce.number().int().min(1).default(200_000),
  /** Live objects a collector process may hold in watch caches (lib/collector/watch-budget.ts); default from its heap limit. */
  DRIFTWATCH_WATCH_MAX_OBJECTS: z.coerce.number().int().min(1).optional(),
  /** How often the audit chain's newest hash is checkpointed into the data folder. */
  DRIFTWATCH_AUDIT_CHECKPOINT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /**
   * Proxies whose X-Forwarded-For/-Proto/-Host are believed (addresses or CIDR
   * ranges, comma-separated). Empty: those headers are ignored and the socket's
   * address is the client's.
   */
  DRIFTWATCH_TRUSTED_PROXIES: z.string().default(""),
  /**
   * Bearer token Prometheus sends to GET /api/metrics. Unset: metrics are
   * served only to signed-in users.
   */
  DRIFTWATCH_METRICS_TOKEN: z.string().min(16, "use at least 16 characters").optional(),
  /** Public URL of the dashboard, used in alert links and OIDC redirects. */
  DRIFTWATCH_PUBLIC_URL: z.string().url().optional(),
  /** Where programs are looked up (kustomize, kubectl) and what renderer children get. */
  PATH: z.string().optional(),
  /** Expands `~/` in a configured kubeconfig path. */
  HOME: z.string().optional(),
});

export type Env = z.infer<typeof schema>;

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment variables:\n  ${lines.join("\n  ")}`);
  }
  cached = parsed.data;
  return cached;
}

/** Tests and the start script change variables at run time; they call this after. */
export function resetEnvCache(): void {
  cached = undefined;
}

export function dataDir(): string {
  return path.resolve(env().DRIFTWATCH_DATA_DIR);
}

/**
 * A credential named by driftwatch.yaml (`tokenEnv`, `secretEnv`,
 * `clientSecretEnv`…): the operator picks the variable, so it cannot be in the
 * schema. Read when used, so nothing but the code that needs it holds it.
 */
export function namedVariable(name: string): string | undefined {
  return process.env[name];
}

/**
 * A copy of this process's whole environment, for a child process that reads
 * its own settings from it (web processes, `next build`, git). Callers take out
 * or add what the child must not or must see.
 */
export function inheritedEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}
