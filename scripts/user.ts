// npm run user -- add NAME --role viewer|operator|admin [--password-stdin] [--display-name "Full Name"]
// npm run user -- passwd NAME [--password-stdin]
// npm run user -- role NAME ROLE
// npm run user -- disable NAME | enable NAME
// npm run user -- list
// Without --password-stdin a random password is generated and printed once.
import os from "node:os";
import { parseArgs } from "node:util";
import { embeddedPostgres } from "@driftwatch/embedded-postgres";
import { ensureDatabase } from "@/lib/db/ensure-database";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { dataDir } from "@/lib/env";
import { ApiError } from "@/lib/api/errors";
import { ROLES, roleSchema, type Role } from "@/lib/auth/roles";
import { createLocalUser, toUserDto, updateUser } from "@/lib/auth/users";
import { generatePassword } from "@/lib/auth/password";
import type { Actor } from "@/lib/audit";

const USAGE = `usage:
  npm run user -- add NAME --role ${ROLES.join("|")} [--password-stdin] [--display-name "Full Name"]
  npm run user -- passwd NAME [--password-stdin]
  npm run user -- role NAME ${ROLES.join("|")}
  npm run user -- disable NAME
  npm run user -- enable NAME
  npm run user -- list`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    role: { type: "string" },
    "password-stdin": { type: "boolean", default: false },
    "display-name": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

function osUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return "unknown";
  }
}

const actor: Actor = { type: "system", name: `cli:${osUser()}` };

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

function parseRole(value: string | undefined): Role {
  const parsed = roleSchema.safeParse(value);
  if (!parsed.success) throw new ApiError("bad_request", `--role must be one of ${ROLES.join(", ")}`);
  return parsed.data;
}

async function password(): Promise<{ value: string; generated: boolean }> {
  if (values["password-stdin"]) return { value: await readStdin(), generated: false };
  return { value: generatePassword(), generated: true };
}

async function main(): Promise<number> {
  const [command, name, extra] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (command !== "list" && !name) {
    console.error(USAGE);
    return 2;
  }
  const database = await ensureDatabase({ dataDir: dataDir(), embedded: embeddedPostgres });
  const db = getPrisma();
  try {
    switch (command) {
      case "add": {
        const role = parseRole(values.role);
        const pw = await password();
        const user = await createLocalUser(db, { username: name!, role, password: pw.value, displayName: values["display-name"] ?? null }, actor);
        console.log(`Created ${user.role} "${user.username}".`);
        if (pw.generated) console.log(`Password (shown once): ${pw.value}`);
        return 0;
      }
      case "passwd": {
        const pw = await password();
        await updateUser(db, name!, { password: pw.value }, actor);
        console.log(`Password of "${name}" changed; their sessions were ended.`);
        if (pw.generated) console.log(`New password (shown once): ${pw.value}`);
        return 0;
      }
      case "role": {
        const user = await updateUser(db, name!, { role: parseRole(extra ?? values.role) }, actor);
        console.log(`"${user.username}" is now ${user.role}.`);
        return 0;
      }
      case "disable":
      case "enable": {
        await updateUser(db, name!, { disabled: command === "disable" }, actor);
        console.log(`"${name}" ${command}d.`);
        return 0;
      }
      case "list": {
        const users = (await db.user.findMany({ orderBy: { username: "asc" } })).map(toUserDto);
        for (const u of users) {
          console.log(`${u.username.padEnd(24)} ${u.role.padEnd(9)} ${u.local ? "local" : "oidc "} ${u.disabledAt ? "disabled" : ""}`.trimEnd());
        }
        return 0;
      }
      default:
        console.error(`unknown command "${command}"\n${USAGE}`);
        return 2;
    }
  } finally {
    await disconnectPrisma();
    await database.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    const message = e instanceof ApiError ? e.message : e instanceof Error && e.name === "ZodError" ? "invalid username: letters, digits and . _ @ + -" : e instanceof Error ? e.message : String(e);
    console.error(`error: ${message}`);
    process.exit(1);
  },
);
