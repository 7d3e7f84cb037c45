// The 409 an apply gets when it would change fields other managers own.
import { StatusError } from "./errors";
import { pathString, type Path } from "./fieldpath";

interface ConflictManager {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource?: string;
}

function printManager(m: ConflictManager): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s = `${s} with subresource ${JSON.stringify(m.subresource)}`;
  // The identity used for conflicts never carries a time, so updates print without one.
  if (m.operation === "Update") return `${s} using ${m.apiVersion}`;
  return s;
}

export function conflictStatus(conflicts: Array<{ manager: ConflictManager; path: Path }>): StatusError {
  const causes = conflicts.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0] as { manager: ConflictManager; path: Path };
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, { printed: string; paths: string[] }>();
    for (const c of conflicts) {
      const id = JSON.stringify(c.manager);
      const cur = byManager.get(id) ?? { printed: printManager(c.manager), paths: [] };
      cur.paths.push(pathString(c.path));
      byManager.set(id, cur);
    }
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort()) {
      const v = byManager.get(id);
      if (!v) continue;
      lines.push(`conflicts with ${v.printed}:`);
      for (const p of v.paths) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return new StatusError(409, "Conflict", message, { causes });
}
