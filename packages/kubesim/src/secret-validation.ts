// ValidateSecret's rules per Secret type (k8s.io/kubernetes pkg/apis/core/validation):
// the keys each well-known type requires, and well-formed JSON in Docker configs.
import type { FieldError } from "./errors";
import { goQuoteChar } from "./go-format";
import { asObj, asStr, type Obj } from "./json";

/** encoding/json's error for a Docker config that does not decode into map[string]interface{}. */
function jsonObjectError(text: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    const pos = at ? Number(at[1]) : text.length;
    if (text.trim() === "" || pos >= text.length) return "unexpected end of JSON input";
    return `invalid character ${goQuoteChar(text.charCodeAt(pos))} looking for beginning of value`;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    const kind = Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "string" ? "string" : typeof v === "number" ? "number" : "bool";
    if (kind === "null") return undefined;
    return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
  }
  return undefined;
}

export function validateSecretType(obj: Obj, errs: FieldError[]): void {
  const data = asObj(obj.data) ?? {};
  const has = (k: string) => data[k] !== undefined;
  const decoded = (k: string) => Buffer.from(asStr(data[k]) ?? "", "base64").toString("utf8");
  const required = (k: string) => errs.push({ type: "Required", field: `data[${k}]` });
  const dockerConfig = (k: string) => {
    if (!has(k)) return required(k);
    const problem = jsonObjectError(decoded(k));
    if (problem) errs.push({ type: "Invalid", field: `data[${k}]`, value: "<secret contents redacted>", detail: problem });
  };
  switch (asStr(obj.type) ?? "Opaque") {
    case "kubernetes.io/service-account-token":
      if (!asStr(asObj(asObj(obj.metadata)?.annotations)?.["kubernetes.io/service-account.name"])) {
        errs.push({ type: "Required", field: "metadata.annotations[kubernetes.io/service-account.name]" });
      }
      break;
    case "kubernetes.io/dockercfg":
      dockerConfig(".dockercfg");
      break;
    case "kubernetes.io/dockerconfigjson":
      dockerConfig(".dockerconfigjson");
      break;
    case "kubernetes.io/basic-auth":
      if (!has("username") && !has("password")) {
        required("username");
        required("password");
      }
      break;
    case "kubernetes.io/ssh-auth":
      if (!asStr(data["ssh-privatekey"])) required("ssh-privatekey");
      break;
    case "kubernetes.io/tls":
      if (!has("tls.crt")) required("tls.crt");
      if (!has("tls.key")) required("tls.key");
      break;
    default:
      break;
  }
}
