// Where the first administrator's generated password goes: straight to the
// terminal when someone is watching one, otherwise into a file only this
// user can read, in the data folder. Never into the log stream: logs are
// shipped, stored and read by people who should not hold an admin password.
import fs from "node:fs";
import path from "node:path";
import type { Writable } from "node:stream";
import type { FirstAdminCredentials } from "@/lib/auth/users";

export const FIRST_ADMIN_FILE = "first-admin-password.txt";

export interface RevealOptions {
  /** The interactive terminal, when there is one (process.stdout when it is a TTY). */
  terminal: Writable | null;
  dataDir: string;
  /** The log: told where the password is, never what it is. */
  log: (message: string) => void;
}

export function revealFirstAdminPassword(opts: RevealOptions): (c: FirstAdminCredentials) => void {
  return ({ username, password }) => {
    const change = `npm run user -- passwd ${username} --password-stdin`;
    if (opts.terminal) {
      opts.terminal.write(
        ["", "  First start: created the administrator account.", `    username: ${username}`, `    password: ${password}`, "  This password is shown only this once. Change it with:", `    ${change}`, "", ""].join("\n"),
      );
      opts.log(`First start: created the administrator account "${username}"; its password was shown on the terminal.`);
      return;
    }
    const file = path.join(opts.dataDir, FIRST_ADMIN_FILE);
    fs.mkdirSync(opts.dataDir, { recursive: true });
    // Created 0600 from the first byte (and tightened if an old file was there).
    const fd = fs.openSync(file, "w", 0o600);
    try {
      fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, `username: ${username}\npassword: ${password}\n`);
    } finally {
      fs.closeSync(fd);
    }
    opts.log(
      `First start: created the administrator account "${username}"; its password is in ${file} (readable only by this user). Sign in, change it (${change}), then delete the file.`,
    );
  };
}
