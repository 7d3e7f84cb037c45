// What the rest of the app may use from lib/auth. Page-only helpers (cookies()
// from next/headers) are in `@/lib/auth/server`.
export { ROLES, roleSchema, hasRole, highestRole } from "./roles";
export type { Role } from "./roles";
export {
  SESSION_COOKIE,
  CSRF_COOKIE,
  CSRF_HEADER,
  SESSION_TTL_MS,
  createSession,
  readSession,
  deleteSession,
  deleteUserSessions,
  hashToken,
} from "./session";
export type { Session, SessionUser } from "./session";
export { hashPassword, verifyPassword, generatePassword, passwordProblem } from "./password";
export { signInLimiter, oidcCallbackLimiter, SignInLimiter, FailureLimiter, RequestLimiter } from "./rate-limit";
export {
  createLocalUser,
  updateUser,
  ensureFirstAdmin,
  signInWithPassword,
  toUserDto,
  usernameSchema,
} from "./users";
export type { UserDto, SignInResult, FirstAdminCredentials } from "./users";
export { sessionFromRequest, mutationProblem, actorOf } from "./guard";
export type { AuthFailure } from "./guard";
export {
  isPublicPath,
  isSecureRequest,
  clientIp,
  originProblem,
  setSessionCookies,
  clearSessionCookies,
  safeNextPath,
} from "./request";
