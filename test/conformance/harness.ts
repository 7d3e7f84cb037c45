// Scenarios are written once, as functions of a Target; the harness runs each
// against both servers, records what a client would see (objects, Status
// bodies, HTTP codes, kubectl output), normalises it, compares it field by
// field and checks every difference against the accepted list in kubesim's
// README.
import fs from "node:fs";
import path from "node:path";
import { ApiException } from "@kubernetes/client-node";
import { compare, Normaliser, type Difference } from "./normalise";
import type { HttpResponse, KubectlResult, Target } from "./target";

export class Recorder {
  readonly observed: Record<string, unknown> = {};
  private readonly normaliser = new Normaliser();

  private put(name: string, value: unknown): void {
    if (name in this.observed) throw new Error(`observation "${name}" recorded twice`);
    this.observed[name] = this.normaliser.value(value);
  }

  /** Any JSON value: an object read back, a list, a computed summary. */
  json(name: string, value: unknown): void {
    this.put(name, value === undefined ? "<undefined>" : JSON.parse(JSON.stringify(value)));
  }

  http(name: string, r: HttpResponse): void {
    const warning = r.headers.warning;
    this.put(name, { status: r.status, body: r.json ?? this.normaliser.text(r.text), ...(warning ? { warning } : {}) });
  }

  kubectl(name: string, r: KubectlResult, form: "json" | "text" = "text"): void {
    const stderr = this.normaliser.output(r.stderr.replace(/^WARNING: version difference.*\n?/m, ""));
    const stdout: unknown = form === "json" && r.code === 0 ? JSON.parse(r.stdout) : this.normaliser.output(r.stdout);
    this.put(name, { code: r.code, stdout, ...(stderr ? { stderr } : {}) });
  }

  /** A client-node call: the returned object, or the HTTP code and Status of its ApiException. */
  async client(name: string, call: Promise<unknown>): Promise<unknown> {
    try {
      const value = await call;
      this.json(name, value ?? null);
      return value;
    } catch (e) {
      if (!(e instanceof ApiException)) throw e;
      const err = e as ApiException<unknown>;
      let body: unknown = err.body;
      if (typeof body === "string") {
        try {
          body = JSON.parse(body);
        } catch {
          // a plain-text body stays as it is
        }
      }
      this.put(name, { code: err.code, body });
      return undefined;
    }
  }
}

export interface Scenario {
  name: string;
  run(t: Target, rec: Recorder): Promise<void>;
}

export interface ScenarioResult {
  name: string;
  compared: number;
  equal: number;
  differences: Array<Difference & { accepted?: string; acceptedBy?: Accepted }>;
}

export const SCENARIO_THREW = "scenario threw";

export async function observe(scenario: Scenario, t: Target): Promise<Record<string, unknown>> {
  const rec = new Recorder();
  try {
    await scenario.run(t, rec);
  } catch (e) {
    // A step that throws on one server is itself a difference; keep what was seen before it.
    rec.json(SCENARIO_THREW, (e as Error).message);
  }
  return rec.observed;
}

export interface Accepted {
  scenario: string;
  field: string;
  reason: string;
}

const root = path.resolve(import.meta.dirname, "../..");
export const README = path.join(root, "packages/kubesim/README.md");
export const REPORT = path.join(root, "packages/kubesim/CONFORMANCE.md");
const ACCEPTED_HEADING = "## Accepted differences from the real server";

/** The table under ACCEPTED_HEADING: | scenario | field | reason |, `*` matching anything in the first two. */
export function readAccepted(readme = fs.readFileSync(README, "utf8")): Accepted[] {
  const start = readme.indexOf(ACCEPTED_HEADING);
  if (start < 0) return [];
  const section = readme.slice(start + ACCEPTED_HEADING.length).split(/\n## /)[0] ?? "";
  return section
    .split("\n")
    .filter((l) => l.startsWith("| `"))
    .map((l) => {
      const cells = l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim().replace(/\\\|/g, "|"));
      const unquote = (c: string | undefined) => (c ?? "").replace(/^`|`$/g, "");
      return { scenario: unquote(cells[0]), field: unquote(cells[1]), reason: cells[2] ?? "" };
    });
}

function glob(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
}

export function matchAccepted(scenario: string, d: Difference, accepted: Accepted[]): Accepted | undefined {
  return accepted.find((a) => glob(a.scenario).test(scenario) && glob(a.field).test(d.path));
}

export function diffScenario(name: string, kubesim: Record<string, unknown>, real: Record<string, unknown>, accepted: Accepted[]): ScenarioResult {
  const { compared, equal, differences } = compare(kubesim, real);
  return { name, compared, equal, differences: differences.map((d) => {
      const by = matchAccepted(name, d, accepted);
      return { ...d, accepted: by?.reason, acceptedBy: by };
    }),
  };
}

function show(v: unknown): string {
  if (typeof v === "symbol") return "_(absent)_";
  const s = JSON.stringify(v) ?? "undefined";
  const cut = s.length > 120 ? `${s.slice(0, 117)}...` : s;
  return `\`${cut.replace(/\|/g, "\\|").replace(/`/g, "'")}\``;
}

export function figure(results: ScenarioResult[]): { compared: number; equal: number } {
  return { compared: results.reduce((n, r) => n + r.compared, 0), equal: results.reduce((n, r) => n + r.equal, 0) };
}

export function renderReport(results: ScenarioResult[], unused: Accepted[], realVersion: string): string {
  const { compared, equal } = figure(results);
  const lines = [
    "# kubesim conformance report",
    "",
    "Generated by `test/conformance/conformance.test.ts` (`npx vitest run --project conformance`): every scenario run",
    `against kubesim and a real kube-apiserver ${realVersion} (tools/realkube), responses normalised and compared field by field.`,
    "Accepted differences and their reasons are listed in [README.md](README.md#accepted-differences-from-the-real-server).",
    "",
    `**${compared} fields compared, ${equal} equal** (${compared - equal} different, all accepted unless marked NOT ACCEPTED below).`,
    "",
    "| scenario | fields compared | equal | different |",
    "|---|---:|---:|---:|",
    ...results.map((r) => `| ${r.name} | ${r.compared} | ${r.equal} | ${r.compared - r.equal} |`),
    "",
  ];
  for (const r of results) {
    if (r.differences.length === 0) continue;
    lines.push(`## ${r.name}`, "", "| field | kubesim | real | accepted because |", "|---|---|---|---|");
    for (const d of r.differences) lines.push(`| \`${d.path.replace(/\|/g, "\\|")}\` | ${show(d.kubesim)} | ${show(d.real)} | ${d.accepted ?? "**NOT ACCEPTED**"} |`);
    lines.push("");
  }
  if (unused.length) {
    lines.push("## Accepted entries that matched nothing", "", ...unused.map((a) => `- \`${a.scenario}\` / \`${a.field}\`: ${a.reason}`), "");
  }
  return lines.join("\n");
}

/** Rewrites the figure line in kubesim's README between its markers. */
export function updateReadmeFigure(results: ScenarioResult[]): void {
  const { compared, equal } = figure(results);
  const readme = fs.readFileSync(README, "utf8");
  const next = readme.replace(/(<!-- conformance-figure -->).*?(<!-- \/conformance-figure -->)/s, `$1**${compared} fields compared, ${equal} equal**$2`);
  if (next !== readme) fs.writeFileSync(README, next);
}
