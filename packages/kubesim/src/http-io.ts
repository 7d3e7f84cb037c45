// The HTTP edge shared by the API and admin endpoints: content negotiation
// (JSON, YAML, Table, PartialObjectMetadata), request bodies (JSON, YAML,
// protobuf), the field manager a User-Agent implies, and the response
// headers kube-apiserver sends.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import YAML from "yaml";
import { badRequest, notAcceptable, StatusError, unsupportedMediaType } from "./errors";
import { asObj, asStr, type Obj } from "./json";
import { decodeProtobufObject, PROTOBUF_CT } from "./protobuf";
import type { ResourceType } from "./registry";
import { toTable } from "./table";

export const JSON_CT = "application/json";

export function parseAccept(header: string | undefined): Array<{ type: string; params: Record<string, string> }> {
  return (header ?? "*/*")
    .split(",")
    .map((part) => {
      const [type, ...ps] = part.split(";").map((s) => s.trim());
      const params: Record<string, string> = {};
      for (const p of ps) {
        const i = p.indexOf("=");
        if (i > 0) params[p.slice(0, i).trim()] = p.slice(i + 1).trim();
      }
      return { type: (type ?? "").toLowerCase(), params };
    })
    .filter((x) => x.type);
}

export type Output = { kind: "json" } | { kind: "yaml" } | { kind: "table"; version: "v1" | "v1beta1" } | { kind: "partial"; list: boolean };

export function negotiate(accept: string | undefined, allowSpecial: boolean): Output {
  for (const a of parseAccept(accept)) {
    if (a.params.as) {
      if (!allowSpecial) continue;
      if (a.params.as === "Table" && a.params.g === "meta.k8s.io" && (a.params.v === "v1" || a.params.v === "v1beta1")) return { kind: "table", version: a.params.v };
      if ((a.params.as === "PartialObjectMetadata" || a.params.as === "PartialObjectMetadataList") && a.params.g === "meta.k8s.io" && a.params.v === "v1") {
        return { kind: "partial", list: a.params.as.endsWith("List") };
      }
      continue;
    }
    if (a.type === "application/json" || a.type === "*/*" || a.type === "application/*") return { kind: "json" };
    if (a.type === "application/yaml") return { kind: "yaml" };
  }
  throw notAcceptable([JSON_CT, "application/yaml", "application/vnd.kubernetes.protobuf"]);
}

export function managerFromUserAgent(ua: string | undefined): string {
  // prefixFromUserAgent: characters before the first "/", printable only, at most 128 bytes.
  const prefix = (ua ?? "").split("/")[0] ?? "";
  let out = "";
  for (const ch of prefix) {
    if (/\p{C}/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out;
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export function parseObjectBody(bodyBuf: Buffer, contentType: string, expectedKind: string): unknown {
  const ct = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (ct === PROTOBUF_CT) return decodeProtobufObject(bodyBuf, expectedKind);
  const body = bodyBuf.toString("utf8");
  if (ct === "application/yaml" || ct === "application/x-yaml") {
    try {
      return YAML.parse(body);
    } catch (e) {
      throw badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
    }
  }
  if (ct !== "" && ct !== JSON_CT && ct !== "*/*") throw unsupportedMediaType([JSON_CT, "application/yaml", "application/vnd.kubernetes.protobuf"]);
  try {
    return JSON.parse(body);
  } catch (e) {
    throw badRequest(`Object 'Kind' is missing in '${body.slice(0, 200)}'${(e as Error).message ? "" : ""}`);
  }
}

export function send(res: ServerResponse, code: number, body: unknown, contentType = JSON_CT, warnings: string[] = []): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const headers: Record<string, string | string[]> = {
    "Content-Type": contentType,
    "Cache-Control": "no-cache, private",
    "Audit-Id": randomUUID(),
    "X-Kubernetes-Pf-Flowschema-Uid": "c8a3b1c2-4d55-4a2d-9e5e-5f1b8a7a0001",
    "X-Kubernetes-Pf-Prioritylevel-Uid": "c8a3b1c2-4d55-4a2d-9e5e-5f1b8a7a0002",
  };
  if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(text);
}

export function sendError(res: ServerResponse, e: StatusError): void {
  const extra: Record<string, string> = {};
  if (e.details?.retryAfterSeconds) extra["Retry-After"] = String(e.details.retryAfterSeconds);
  res.writeHead(e.code, { "Content-Type": JSON_CT, "Cache-Control": "no-cache, private", "Audit-Id": randomUUID(), ...extra });
  res.end(JSON.stringify(e.toStatus()));
}

export function sendObject(res: ServerResponse, code: number, obj: Obj, out: Output, rt: ResourceType | undefined, warnings: string[]): void {
  if (out.kind === "yaml") return send(res, code, YAML.stringify(obj), "application/yaml", warnings);
  if (rt && out.kind === "table" && obj.kind !== "Status") {
    return send(res, code, toTable(rt, [obj], { resourceVersion: asStr(asObj(obj.metadata)?.resourceVersion) ?? "" }, { tableVersion: out.version }), JSON_CT, warnings);
  }
  if (rt && out.kind === "partial" && obj.kind !== "Status") {
    return send(res, code, { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata }, JSON_CT, warnings);
  }
  return send(res, code, obj, JSON_CT, warnings);
}
