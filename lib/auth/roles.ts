import { z } from "zod";

export const ROLES = ["viewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES);

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** True when `actual` includes everything `required` may do. */
export function hasRole(actual: Role, required: Role): boolean {
  return RANK[actual] >= RANK[required];
}

/** The highest of several roles (a user in several mapped groups gets the strongest). */
export function highestRole(roles: Iterable<Role>): Role | null {
  let best: Role | null = null;
  for (const r of roles) if (best === null || RANK[r] > RANK[best]) best = r;
  return best;
}
