// schemathesis (PyPI) for the API contract fuzzing: installed on first use
// into a virtualenv under the user's cache folder, from a requirements file
// pinned with hashes, and reused by every later run. Works as root and as a
// normal user; needs python3 with its venv module (Debian: python3-venv).
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const SCHEMATHESIS_VERSION = "4.32.5";
const REQUIREMENTS = path.resolve(import.meta.dirname, "../contract/schemathesis-requirements.txt");

function cacheRoot(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache"), "driftwatch");
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) {
    const why = r.error ? r.error.message : `${r.stderr}${r.stdout}`.trim().slice(-3000);
    throw new Error(`${cmd} ${args.join(" ")} failed: ${why}`);
  }
}

/**
 * Path of the `schemathesis` executable, installing it when the cached
 * virtualenv is missing, half-made, or was made from other requirements
 * (the marker file holds the requirements' digest and is written last).
 */
export function ensureSchemathesis(log: (m: string) => void = () => undefined): string {
  const requirements = fs.readFileSync(REQUIREMENTS);
  const digest = createHash("sha256").update(requirements).digest("hex");
  const dir = path.join(cacheRoot(), `schemathesis-${SCHEMATHESIS_VERSION}`);
  const bin = path.join(dir, "bin", "schemathesis");
  const marker = path.join(dir, ".driftwatch-requirements.sha256");
  if (fs.existsSync(bin) && fs.existsSync(marker) && fs.readFileSync(marker, "utf8").trim() === digest) return bin;

  log(`Installing schemathesis ${SCHEMATHESIS_VERSION} from PyPI into ${dir} (once)…`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const python = process.env.PYTHON ?? "python3";
  try {
    run(python, ["-m", "venv", dir]);
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nThe API contract tests need python3 with its venv module (Debian: apt-get install python3-venv).`);
  }
  run(path.join(dir, "bin", "python"), [
    "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input",
    "--require-hashes", "--only-binary=:all:", "-r", REQUIREMENTS,
  ]);
  fs.writeFileSync(marker, digest + "\n");
  return bin;
}

/** The figures of one run, from its JSON report (`--report json`). */
export interface SchemathesisReport {
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: Array<{ code: string; title: string; count: number; operations: string[] }>;
  errors: unknown[];
  running_time: number;
  exit_code: number;
}

export interface SchemathesisRun {
  report: SchemathesisReport;
  /** The CLI's own output: each failure with a curl line that reproduces it. */
  output: string;
}

/**
 * One `schemathesis run` against `schemaUrl` with the given extra arguments;
 * resolves with its JSON report whatever the exit code (the caller asserts).
 */
export async function runSchemathesis(bin: string, schemaUrl: string, args: string[], workDir: string): Promise<SchemathesisRun> {
  const reportPath = path.join(workDir, `report-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const child = spawn(bin, ["--no-color", "run", schemaUrl, "--report", "json", "--report-json-path", reportPath, ...args], {
    // Hypothesis keeps an example database in the working folder: a temporary one keeps runs independent.
    cwd: workDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", resolve);
  });
  if (!fs.existsSync(reportPath)) throw new Error(`schemathesis exited with ${code} and wrote no report:\n${output.slice(-4000)}`);
  return { report: JSON.parse(fs.readFileSync(reportPath, "utf8")) as SchemathesisReport, output };
}
