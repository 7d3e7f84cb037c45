// Demo accounts. The passwords are printed by `npm run demo`: they protect a
// dashboard of simulated clusters on this machine and nothing else.
import type { PrismaClient } from "@/lib/db/generated/client";
import { createLocalUser } from "@/lib/auth";
import type { Role } from "@/lib/auth";

export const DEMO_ACCOUNTS: Array<{ username: string; role: Role; password: string; displayName: string }> = [
  { username: "viewer", role: "viewer", password: "demo-viewer-pass", displayName: "Victor Viewer" },
  { username: "operator", role: "operator", password: "demo-operator-pass", displayName: "Oona Operator" },
  { username: "admin", role: "admin", password: "demo-admin-pass", displayName: "Ada Admin" },
];

/** People in the scripted incident (not printed: the story's cast). */
const CAST: Array<{ username: string; role: Role; displayName: string }> = [
  { username: "olivia", role: "operator", displayName: "Olivia (on call)" },
  { username: "dan", role: "operator", displayName: "Dan Weber" },
];

export async function ensureDemoUsers(db: PrismaClient): Promise<Record<string, { id: string; name: string }>> {
  const out: Record<string, { id: string; name: string }> = {};
  for (const a of [...DEMO_ACCOUNTS, ...CAST.map((c) => ({ ...c, password: `cast-${c.username}-${Math.random().toString(36).slice(2)}-pw` }))]) {
    let user = await db.user.findUnique({ where: { username: a.username } });
    if (!user) {
      await createLocalUser(db, { username: a.username, role: a.role, password: a.password, displayName: a.displayName }, { type: "system", name: "demo" });
      user = await db.user.findUniqueOrThrow({ where: { username: a.username } });
    }
    out[a.username] = { id: user.id, name: user.username };
  }
  return out;
}
