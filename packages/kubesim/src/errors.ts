// metav1.Status errors with the reasons, codes and messages the real apiserver
// produces (k8s.io/apimachinery/pkg/api/errors). Clients branch on `reason`
// and `code`, and users read `message`, so both must match.
import { q, type Obj } from "./json";

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly listContinue?: string,
  ) {
    super(message);
  }

  toStatus(): Obj {
    const metadata: Obj = {};
    if (this.listContinue) metadata.continue = this.listContinue;
    const s: Obj = { kind: "Status", apiVersion: "v1", metadata, status: "Failure", message: this.message };
    if (this.reason) s.reason = this.reason;
    if (this.details) {
      const d: Obj = {};
      if (this.details.name) d.name = this.details.name;
      if (this.details.group) d.group = this.details.group;
      if (this.details.kind) d.kind = this.details.kind;
      if (this.details.uid) d.uid = this.details.uid;
      if (this.details.causes && this.details.causes.length > 0) d.causes = this.details.causes;
      if (this.details.retryAfterSeconds) d.retryAfterSeconds = this.details.retryAfterSeconds;
      // An explicitly empty details object is sent as `details: {}`, as go-restful's errors carry it.
      if (Object.keys(d).length > 0 || Object.keys(this.details).length === 0) s.details = d;
    }
    s.code = this.code;
    return s;
  }
}

/** group + resource, printed like schema.GroupResource.String(): "deployments.apps" or "configmaps". */
export interface GR {
  group: string;
  resource: string;
}

export function grString(gr: GR): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function notFound(gr: GR, name: string): StatusError {
  return new StatusError(404, "NotFound", `${grString(gr)} ${q(name)} not found`, { name, group: gr.group, kind: gr.resource });
}

export function alreadyExists(gr: GR, name: string): StatusError {
  return new StatusError(409, "AlreadyExists", `${grString(gr)} ${q(name)} already exists`, { name, group: gr.group, kind: gr.resource });
}

export function conflict(gr: GR, name: string, err: string): StatusError {
  return new StatusError(409, "Conflict", `Operation cannot be fulfilled on ${grString(gr)} ${q(name)}: ${err}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function unauthorized(): StatusError {
  return new StatusError(401, "Unauthorized", "Unauthorized");
}

export function forbidden(gr: GR | null, name: string, err: string): StatusError {
  let message: string;
  if (!gr || (!gr.group && !gr.resource)) message = `forbidden: ${err}`;
  else if (!name) message = `${grString(gr)} is forbidden: ${err}`;
  else message = `${grString(gr)} ${q(name)} is forbidden: ${err}`;
  return new StatusError(403, "Forbidden", message, gr ? { name: name || undefined, group: gr.group, kind: gr.resource } : undefined);
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, "BadRequest", message);
}

export function expired(message: string, listContinue?: string): StatusError {
  return new StatusError(410, "Expired", message, undefined, listContinue);
}

export function methodNotSupported(gr: GR, action: string): StatusError {
  return new StatusError(405, "MethodNotAllowed", `${action} is not supported on resources of kind ${q(grString(gr))}`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/**
 * A path outside every served group/version: the real server's mux answers it before any
 * API handler, in plain text rather than a Status.
 */
export class PageNotFound extends StatusError {
  constructor() {
    super(404, "NotFound", "404 page not found");
  }
}

/**
 * go-restful's own answer when a built-in kind's route does not consume the request's
 * Content-Type: it never reaches the patch handler, so the message names no media types.
 */
export function restfulUnsupportedMediaType(): StatusError {
  return new StatusError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});
}

/** go-restful's answer to a method its routes for the path do not take (POST to a name, PUT to a collection). */
export function restfulMethodNotAllowed(): StatusError {
  return new StatusError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {});
}

export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  );
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError(406, "NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

export function internalError(err: string): StatusError {
  return new StatusError(500, "InternalError", `Internal error occurred: ${err}`, { causes: [{ message: err }] });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, "ServiceUnavailable", message);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, "TooManyRequests", message, { retryAfterSeconds });
}

export function timeoutError(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(504, "Timeout", `Timeout: ${message}`, { retryAfterSeconds });
}

/** errors.NewGenericServerResponse with an empty resource, as the patch handler uses for 422s. */
export function genericUnprocessable(serverMessage: string): StatusError {
  void serverMessage;
  return new StatusError(422, "Invalid", "the server rejected our request due to an error in our request", {});
}

// ---- field.ErrorList → 422 Invalid ----

export type FieldErrorType = "Required" | "Invalid" | "NotSupported" | "Duplicate" | "Forbidden" | "TooLong" | "TooMany" | "TypeInvalid";

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: "Required value",
  Invalid: "Invalid value",
  NotSupported: "Unsupported value",
  Duplicate: "Duplicate value",
  Forbidden: "Forbidden",
  TooLong: "Too long",
  TooMany: "Too many",
  TypeInvalid: "Invalid value",
};

const CAUSE_TYPE: Record<FieldErrorType, string> = {
  Required: "FieldValueRequired",
  Invalid: "FieldValueInvalid",
  NotSupported: "FieldValueNotSupported",
  Duplicate: "FieldValueDuplicate",
  Forbidden: "FieldValueForbidden",
  TooLong: "FieldValueTooLong",
  TooMany: "FieldValueTooMany",
  TypeInvalid: "FieldValueTypeInvalid",
};

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  detail?: string;
}

function goValue(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return q(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

export function fieldErrorBody(e: FieldError): string {
  let s: string;
  if (e.type === "Required" || e.type === "Forbidden" || e.type === "TooLong" || !("value" in e)) s = TYPE_TEXT[e.type];
  else s = `${TYPE_TEXT[e.type]}: ${goValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

export function invalid(group: string, kind: string, name: string, errs: FieldError[]): StatusError {
  const causes = errs.map((e) => ({ reason: CAUSE_TYPE[e.type], message: fieldErrorBody(e), field: e.field }));
  const msgs: string[] = [];
  for (const e of errs) {
    const m = fieldErrorString(e);
    if (!msgs.includes(m)) msgs.push(m);
  }
  const gk = group ? `${kind}.${group}` : kind;
  const agg = msgs.length === 0 ? "" : msgs.length === 1 ? msgs[0] : `[${msgs.join(", ")}]`;
  const message = agg ? `${gk} ${q(name)} is invalid: ${agg}` : `${gk} ${q(name)} is invalid`;
  return new StatusError(422, "Invalid", message, {
    name,
    group,
    kind,
    causes,
  });
}
