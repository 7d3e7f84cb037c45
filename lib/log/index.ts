// Structured logs. Callers add { env, runId } with logger.child so every line
// of a collection run can be found. Redaction is a second line of defence:
// credentials and secret values must never reach a log call in the first place.
import pino from "pino";
import { env } from "@/lib/env";

// Where log lines go; a command whose stdout is its answer moves them to stderr.
let target: NodeJS.WritableStream = process.stdout;
const destination = { write: (line: string) => target.write(line) };

/** For commands whose stdout is a document or a report (`collect --once [--json]`): every log line goes to stderr from now on. */
export function sendLogsToStderr(): void {
  target = process.stderr;
}

export const logger = pino(
  {
    level: env().LOG_LEVEL,
    base: { service: "driftwatch" },
    redact: {
      paths: ["*.token", "*.password", "*.authorization", "*.headers.authorization", "*.secret", "*.data", "*.stringData"],
      censor: "[redacted]",
    },
  },
  destination,
);

export type Logger = pino.Logger;
