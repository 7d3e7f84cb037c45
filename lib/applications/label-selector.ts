// Kubernetes label selectors (`app=web,tier!=db,env in (a,b),!legacy`), parsed
// once from driftwatch.yaml and matched in memory: one list of controller
// objects serves every environment on a cluster, each with its own selector.
export type LabelRequirement =
  | { op: "exists" | "not-exists"; key: string }
  | { op: "in" | "not-in"; key: string; values: string[] };

export type LabelSelector = LabelRequirement[];

export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LabelSelectorError";
  }
}

// A qualified key (optional DNS prefix) or a value, as the API server accepts them.
const KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on the commas between requirements, not those inside `in (a,b)`. */
function splitRequirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of text) {
    if (c === "(") depth++;
    if (c === ")") depth--;
    if (depth < 0) throw new LabelSelectorError(`unbalanced ")" in "${text}"`);
    if (c === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += c;
  }
  if (depth !== 0) throw new LabelSelectorError(`unbalanced "(" in "${text}"`);
  parts.push(current);
  return parts.map((p) => p.trim());
}

function checkKey(key: string, whole: string): string {
  if (!KEY.test(key)) throw new LabelSelectorError(`"${key}" is not a label key (in "${whole}")`);
  return key;
}

function checkValue(value: string, whole: string): string {
  if (value.length > 63 || !VALUE.test(value)) throw new LabelSelectorError(`"${value}" is not a label value (in "${whole}")`);
  return value;
}

/** Parses a selector; the empty string selects everything. Throws LabelSelectorError naming the bad part. */
export function parseLabelSelector(text: string): LabelSelector {
  if (text.trim() === "") return [];
  return splitRequirements(text).map((part): LabelRequirement => {
    if (part === "") throw new LabelSelectorError(`empty requirement in "${text}"`);
    const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (set) {
      const values = (set[3] ?? "").split(",").map((v) => checkValue(v.trim(), text));
      return { op: set[2] === "in" ? "in" : "not-in", key: checkKey(set[1] ?? "", text), values };
    }
    const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (equality) {
      const op = equality[2] === "!=" ? "not-in" : "in";
      return { op, key: checkKey(equality[1] ?? "", text), values: [checkValue(equality[3] ?? "", text)] };
    }
    if (part.startsWith("!")) return { op: "not-exists", key: checkKey(part.slice(1).trim(), text) };
    return { op: "exists", key: checkKey(part, text) };
  });
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string>): boolean {
  return selector.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case "exists":
        return has;
      case "not-exists":
        return !has;
      case "in":
        return has && r.values.includes(labels[r.key] ?? "");
      case "not-in":
        // As the API server: a missing label satisfies `!=` and `notin`.
        return !has || !r.values.includes(labels[r.key] ?? "");
    }
  });
}
