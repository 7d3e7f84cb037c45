// Bearer-token authentication and a small RBAC-like authorizer whose denials
// read exactly like the real RBAC authorizer's.
import { randomBytes } from "node:crypto";
import { forbidden, unauthorized, type StatusError } from "./errors";

export interface TokenScope {
  verbs: "read" | "write";
  namespaces?: string[];
  /** User name reported in 403 messages. */
  user?: string;
}

export interface User {
  name: string;
  scope: TokenScope;
  /** No credentials at all: the default kube-apiserver lets the request through as system:anonymous. */
  anonymous?: boolean;
}

const ANONYMOUS: User = { name: "system:anonymous", scope: { verbs: "read" }, anonymous: true };

/** What system:public-info-viewer grants system:unauthenticated. */
const PUBLIC_PATHS = /^\/(healthz|livez|readyz)(\/.*)?$|^\/version\/?$/;

export interface RequestAttributes {
  resourceRequest: boolean;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

const READ_VERBS = new Set(["get", "list", "watch"]);

export function newToken(): string {
  return randomBytes(24).toString("base64url");
}

export class Authenticator {
  private tokens = new Map<string, User>();
  private expired = new Set<string>();
  private counter = 0;

  add(token: string, scope: TokenScope): void {
    this.counter += 1;
    const name = scope.user ?? (scope.verbs === "write" ? `kubesim-user-${this.counter}` : `kubesim-reader-${this.counter}`);
    this.tokens.set(token, { name, scope });
    this.expired.delete(token);
  }

  expire(token: string): void {
    this.expired.add(token);
  }

  unexpireAll(): void {
    this.expired.clear();
  }

  /** Throws a 401 Status for an unknown or expired token; no credentials make the anonymous user. */
  authenticate(authorization: string | undefined): User {
    if (authorization === undefined || authorization === "") return ANONYMOUS;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw unauthorized();
    const token = m[1] as string;
    const user = this.tokens.get(token);
    if (!user || this.expired.has(token)) throw unauthorized();
    return user;
  }
}

export function forbiddenMessage(user: string, a: RequestAttributes): string {
  if (!a.resourceRequest) return `User ${JSON.stringify(user)} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (a.namespace) {
    return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} in the namespace ${JSON.stringify(a.namespace)}`;
  }
  return `User ${JSON.stringify(user)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} at the cluster scope`;
}

export function forbiddenError(user: string, a: RequestAttributes): StatusError {
  return forbidden(a.resourceRequest ? { group: a.group, resource: a.resource } : null, a.name, forbiddenMessage(user, a));
}

/** Returns undefined when allowed, else the 403 to send. */
export function authorize(user: User, a: RequestAttributes): StatusError | undefined {
  if (user.anonymous) return !a.resourceRequest && a.verb === "get" && PUBLIC_PATHS.test(a.path) ? undefined : forbiddenError(user.name, a);
  if (!a.resourceRequest) return undefined;
  if (user.scope.verbs === "read" && !READ_VERBS.has(a.verb)) return forbiddenError(user.name, a);
  const ns = user.scope.namespaces;
  if (ns && ns.length > 0) {
    // Namespace-scoped grants (RoleBindings) never cover cluster-scoped or all-namespace requests.
    if (!a.namespace || !ns.includes(a.namespace)) return forbiddenError(user.name, a);
  }
  return undefined;
}
