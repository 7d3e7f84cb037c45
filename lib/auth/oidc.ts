// OpenID Connect sign-in: authorization code flow with PKCE, state and nonce
// (openid-client 6). The in-flight values live in a short-lived HttpOnly
// cookie scoped to the OIDC routes; the provider's groups claim picks the role.
import * as oidc from "openid-client";
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import type { DriftwatchConfig } from "@/lib/config";
import { appendAudit } from "@/lib/audit";
import { namedVariable } from "@/lib/env";
import type { SessionUser } from "./session";
import { openSignedInSession } from "./users";
import { failedAttemptAudit } from "./failed-attempts";
import { highestRole, type Role } from "./roles";

export type OidcConfig = NonNullable<DriftwatchConfig["auth"]["oidc"]>;

export const OIDC_COOKIE = "driftwatch_oidc";
export const OIDC_COOKIE_PATH = "/api/auth/oidc";
export const OIDC_TX_TTL_MS = 10 * 60_000;

export class OidcError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OidcError";
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

const discovered = new Map<string, { config: oidc.Configuration; at: number }>();

/** The provider's metadata, cached for ten minutes per issuer and client. */
export async function providerConfig(cfg: OidcConfig): Promise<oidc.Configuration> {
  const secret = namedVariable(cfg.clientSecretEnv);
  if (!secret) throw new OidcError(`the OIDC client secret is not set (environment variable ${cfg.clientSecretEnv})`);
  const cacheKey = `${cfg.issuer}\n${cfg.clientId}`;
  const hit = discovered.get(cacheKey);
  if (hit && Date.now() - hit.at < 10 * 60_000) return hit.config;
  const issuer = new URL(cfg.issuer);
  // Plain http only for a provider on this machine (development, tests); anywhere else it must be https.
  const insecure = issuer.protocol === "http:" && LOOPBACK.has(issuer.hostname);
  try {
    const config = await oidc.discovery(issuer, cfg.clientId, undefined, oidc.ClientSecretBasic(secret), {
      execute: insecure ? [oidc.allowInsecureRequests] : [],
      timeout: 10,
    });
    discovered.set(cacheKey, { config, at: Date.now() });
    return config;
  } catch (e) {
    throw new OidcError(`cannot read the OpenID provider's configuration from ${cfg.issuer}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function resetOidcCache(): void {
  discovered.clear();
}

export interface OidcTransaction {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  createdAt: number;
}

export function encodeTransaction(tx: OidcTransaction): string {
  return Buffer.from(JSON.stringify(tx)).toString("base64url");
}

export function decodeTransaction(value: string | undefined, now: number = Date.now()): OidcTransaction | null {
  if (!value || value.length > 4000) return null;
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<OidcTransaction>;
    if (typeof parsed.state !== "string" || typeof parsed.nonce !== "string" || typeof parsed.verifier !== "string") return null;
    if (typeof parsed.createdAt !== "number" || now - parsed.createdAt > OIDC_TX_TTL_MS) return null;
    return { state: parsed.state, nonce: parsed.nonce, verifier: parsed.verifier, next: typeof parsed.next === "string" ? parsed.next : "/", createdAt: parsed.createdAt };
  } catch {
    return null;
  }
}

/** Step 1: where to send the browser, and the transaction to keep in the cookie. */
export async function startSignIn(
  cfg: OidcConfig,
  redirectUri: string,
  next: string,
): Promise<{ url: URL; transaction: OidcTransaction }> {
  const config = await providerConfig(cfg);
  const verifier = oidc.randomPKCECodeVerifier();
  const transaction: OidcTransaction = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier, next, createdAt: Date.now() };
  const supported = config.serverMetadata().scopes_supported;
  // A scope the provider does not list could be refused as invalid_scope; ask only for listed ones.
  const wanted = supported ? ["profile", "email", cfg.groupsClaim].filter((s) => supported.includes(s)) : ["profile", "email"];
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: ["openid", ...new Set(wanted)].join(" "),
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state: transaction.state,
    nonce: transaction.nonce,
  });
  return { url, transaction };
}

function stringList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string") return value.split(/[,\s]+/).filter(Boolean);
  return [];
}

/** The role a set of groups earns: the strongest mapped one, else the configured default (null = no access). */
export function roleForGroups(cfg: Pick<OidcConfig, "roles" | "defaultRole">, groups: string[]): Role | null {
  const have = new Set(groups);
  const earned: Role[] = [];
  for (const role of ["admin", "operator", "viewer"] as const) {
    if (cfg.roles[role].some((g) => have.has(g))) earned.push(role);
  }
  return highestRole(earned) ?? cfg.defaultRole;
}

export interface OidcIdentity {
  issuer: string;
  subject: string;
  username: string;
  displayName: string | null;
  email: string | null;
  groups: string[];
}

/** Step 2: exchange the code (PKCE, state and nonce checked) and read who signed in. */
export async function finishSignIn(cfg: OidcConfig, callbackUrl: URL, tx: OidcTransaction): Promise<OidcIdentity> {
  const config = await providerConfig(cfg);
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: tx.verifier,
      expectedState: tx.state,
      expectedNonce: tx.nonce,
      idTokenExpected: true,
    });
  } catch (e) {
    throw new OidcError(`the OpenID provider's answer was refused: ${e instanceof Error ? e.message : String(e)}`);
  }
  const claims = tokens.claims();
  if (!claims) throw new OidcError("the OpenID provider returned no ID token");
  let all: Record<string, unknown> = { ...claims };
  if (all[cfg.groupsClaim] === undefined || all.preferred_username === undefined) {
    // Many providers put groups (and names) only in the userinfo answer.
    try {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      all = { ...info, ...all };
      if (all[cfg.groupsClaim] === undefined && info[cfg.groupsClaim] !== undefined) all[cfg.groupsClaim] = info[cfg.groupsClaim];
    } catch {
      // userinfo is optional; the ID token's claims are used alone
    }
  }
  const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);
  const email = str(all.email);
  return {
    issuer: claims.iss,
    subject: claims.sub,
    username: (str(all.preferred_username) ?? email ?? `oidc-${claims.sub}`).slice(0, 100),
    displayName: str(all.name),
    email,
    groups: stringList(all[cfg.groupsClaim]),
  };
}

/**
 * Finds or creates the user for an OIDC identity and opens a session. The
 * role follows the groups at every sign-in. A local account with the same
 * username is never taken over: the OIDC user gets a suffixed name instead.
 */
export async function signInWithOidc(
  db: PrismaClient,
  cfg: OidcConfig,
  identity: OidcIdentity,
  meta: { ip: string; now?: Date },
): Promise<{ ok: true; user: SessionUser; session: { token: string; csrfToken: string; expiresAt: Date } } | { ok: false; reason: string }> {
  const now = meta.now ?? new Date();
  const role = roleForGroups(cfg, identity.groups);
  const existing = await db.user.findUnique({ where: { oidcIssuer_oidcSubject: { oidcIssuer: identity.issuer, oidcSubject: identity.subject } } });
  if (!role || existing?.disabledAt) {
    const reason = !role ? `no Driftwatch role for groups [${identity.groups.join(", ")}]` : "account disabled";
    await failedAttemptAudit().record(
      {
        action: "auth.signin_failed",
        method: "oidc",
        ip: meta.ip,
        target: identity.username,
        reason,
        event: {
          actor: { type: "anonymous", name: identity.username },
          action: "auth.signin_failed",
          targetType: "user",
          targetId: identity.username,
          reason,
          after: { ip: meta.ip, method: "oidc", issuer: identity.issuer, subject: identity.subject, groups: identity.groups },
        },
      },
      now,
    );
    return { ok: false, reason: !role ? "Your account has no Driftwatch role. Ask an administrator to add your group." : "Your Driftwatch account is disabled." };
  }
  const user = await db.$transaction(async (t) => {
    if (existing) {
      const updated = await t.user.update({
        where: { id: existing.id },
        data: { role, displayName: identity.displayName, email: identity.email },
      });
      if (existing.role !== role) {
        await appendAudit(t, {
          actor: { type: "system", name: "oidc" },
          action: "user.updated",
          targetType: "user",
          targetId: updated.username,
          reason: "role follows the provider's groups",
          before: { role: existing.role },
          after: { role, groups: identity.groups },
          at: now,
        });
      }
      return updated;
    }
    let username = identity.username;
    for (let i = 2; await t.user.findUnique({ where: { username } }); i++) username = `${identity.username}-${i}`;
    try {
      const created = await t.user.create({
        data: { username, role, displayName: identity.displayName, email: identity.email, oidcIssuer: identity.issuer, oidcSubject: identity.subject },
      });
      await appendAudit(t, {
        actor: { type: "system", name: "oidc" },
        action: "user.created",
        targetType: "user",
        targetId: username,
        after: { role, oidc: true, issuer: identity.issuer, groups: identity.groups },
        at: now,
      });
      return created;
    } catch (e) {
      if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") throw new OidcError("this account is being created by another sign-in; try again");
      throw e;
    }
  });
  return openSignedInSession(db, user, { ip: meta.ip, method: "oidc", role }, now);
}
