// Local account passwords: scrypt (node:crypto), a random salt per password,
// parameters stored with the hash so they can be raised later without
// invalidating existing accounts.
import { randomBytes, randomInt, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { availableParallelism } from "node:os";

const N = 16384;
const R = 8;
const P = 1;
const KEY_LEN = 32;

/**
 * How many scrypt computations may run at once in this process. Each costs
 * ~50 ms of a core, and libuv would run four at a time: a flood of guesses
 * (every one below the throttling limits is checked) would then take every
 * core from signed-in users' requests. Half the cores, at least one, keeps
 * the rest for them; checks beyond that wait their turn.
 */
const SCRYPT_LANES = Math.max(1, Math.floor(availableParallelism() / 2));
let scryptRunning = 0;
const scryptWaiting: Array<() => void> = [];

/** Password checks and hashings running now (at most SCRYPT_LANES). */
export function passwordChecksRunning(): number {
  return scryptRunning;
}

export function passwordCheckLanes(): number {
  return SCRYPT_LANES;
}

async function scrypt(password: string, salt: Buffer, keyLen: number, opts: ScryptOptions): Promise<Buffer> {
  if (scryptRunning >= SCRYPT_LANES) await new Promise<void>((resolve) => scryptWaiting.push(resolve));
  scryptRunning++;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      scryptCb(password.normalize("NFC"), salt, keyLen, opts, (err, key) => (err ? reject(err) : resolve(key)));
    });
  } finally {
    scryptRunning--;
    scryptWaiting.shift()?.();
  }
}

/** `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? "").split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") {
    // Spend the same time as a real check so a missing account is not told apart by timing.
    await scrypt(password, Buffer.alloc(16), KEY_LEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
    return false;
  }
  const [, n, r, p, saltB64, hashB64] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashB64, "base64url");
  const key = await scrypt(password, Buffer.from(saltB64, "base64url"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 256 * 1024 * 1024,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password for generated accounts: 20 characters, ~119 bits. */
export function generatePassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  let out = "";
  for (let i = 0; i < 20; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Shared by the user script and the API, so both refuse the same passwords. */
export function passwordProblem(password: string): string | null {
  if (password.length < 12) return "a password needs at least 12 characters";
  if (password.length > 1024) return "a password has at most 1024 characters";
  return null;
}
