import fs from "node:fs";

/** CHROMIUM_PATH, else Debian's /usr/bin/chromium; a one-line hint when neither exists. */
export function chromiumPath(): string {
  const candidate = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!fs.existsSync(candidate)) {
    throw new Error(`Chromium not found at ${candidate}: install it with \`apt-get install -y chromium\` or set CHROMIUM_PATH.`);
  }
  return candidate;
}
