// Structured logs. Callers add { env, runId } with logger.child so every line
// of a collection run can be found. Redaction is a second line of defence:
// credentials and secret values must never reach a log call in the first place.
import pino from "pino";
import { env } from "@/lib/env";

export const logger = pino({
  level: env().LOG_LEVEL,
  base: { service: "driftwatch" },
  redact: {
    paths: ["*.token", "*.password", "*.authorization", "*.headers.authorization", "*.secret", "*.data", "*.stringData"],
    censor: "[redacted]",
  },
});

export type Logger = pino.Logger;
