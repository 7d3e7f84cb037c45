// /openapi/v2: the Swagger 2.0 document of every served kind, built from the
// same schemas as the v3 documents, in JSON or — what client-go's discovery
// asks for — protobuf as gnostic's openapi_v2.Document (field numbers from
// github.com/google/gnostic-models openapiv2/OpenAPIv2.proto). kubectl 1.32
// reads it for client-side validation and apply when OpenAPI v3 is unusable.
import { createHash } from "node:crypto";
import YAML from "yaml";
import { SERVER_VERSION } from "./discovery";
import { asObj, isObj, type Obj } from "./json";
import { openAPIv3Document } from "./openapi";
import { gvString, type Registry } from "./registry";

/** The content type the real server answers with (the Accept header kubectl sends has "@v1.0" instead of ".v1.0"). */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

function toV2(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toV2);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    // Swagger 2.0 has no anyOf/oneOf/not/nullable; the real server drops them from v2 too.
    if (k === "anyOf" || k === "oneOf" || k === "not" || k === "nullable") continue;
    if (k === "$ref" && typeof x === "string") out[k] = x.replace("#/components/schemas/", "#/definitions/");
    else out[k] = toV2(x);
  }
  return out;
}

export function openAPIv2Document(registry: Registry): Obj {
  const definitions: Obj = {};
  const gvs = new Set(registry.all().map((t) => gvString(t.group, t.version)));
  for (const gv of [...gvs].sort()) {
    const [group, version] = gv.includes("/") ? (gv.split("/") as [string, string]) : ["", gv];
    const doc = openAPIv3Document(registry, group, version);
    Object.assign(definitions, toV2(asObj(asObj(doc?.components)?.schemas) ?? {}));
  }
  const sorted: Obj = {};
  for (const k of Object.keys(definitions).sort()) sorted[k] = definitions[k];
  return { swagger: "2.0", info: { title: "Kubernetes", version: SERVER_VERSION.gitVersion }, paths: {}, definitions: sorted };
}

export function etagOf(bytes: Buffer | string): string {
  return `"${createHash("sha512").update(bytes).digest("hex").slice(0, 128).toUpperCase()}"`;
}

// ---- protobuf

class Writer {
  private parts: Buffer[] = [];

  private varint(n: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(n));
    const bytes: number[] = [];
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) b |= 0x80;
      bytes.push(b);
    } while (v > 0n);
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  string(field: number, s: string | undefined): void {
    if (s === undefined || s === "") return;
    this.bytes(field, Buffer.from(s, "utf8"));
  }

  bytes(field: number, b: Buffer): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.parts.push(b);
  }

  message(field: number, w: Writer): void {
    this.bytes(field, w.finish());
  }

  bool(field: number, v: unknown): void {
    if (v !== true) return;
    this.tag(field, 0);
    this.varint(1);
  }

  int(field: number, v: unknown): void {
    if (typeof v !== "number" || v === 0) return;
    this.tag(field, 0);
    this.varint(Math.trunc(v));
  }

  double(field: number, v: unknown): void {
    if (typeof v !== "number" || v === 0) return;
    this.tag(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.parts.push(b);
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Any { yaml = 2 }: gnostic keeps non-schema values as YAML text. */
function anyMsg(v: unknown): Writer {
  const w = new Writer();
  w.string(2, YAML.stringify(v).replace(/\n$/, "") + "\n");
  return w;
}

function namedAny(name: string, v: unknown): Writer {
  const w = new Writer();
  w.string(1, name);
  w.message(2, anyMsg(v));
  return w;
}

function schemaMsg(s: Obj): Writer {
  const w = new Writer();
  w.string(1, typeof s.$ref === "string" ? s.$ref : undefined);
  w.string(2, typeof s.format === "string" ? s.format : undefined);
  w.string(3, typeof s.title === "string" ? s.title : undefined);
  w.string(4, typeof s.description === "string" ? s.description : undefined);
  if (s.default !== undefined) w.message(5, anyMsg(s.default));
  w.double(6, s.multipleOf);
  w.double(7, s.maximum);
  w.bool(8, s.exclusiveMaximum);
  w.double(9, s.minimum);
  w.bool(10, s.exclusiveMinimum);
  w.int(11, s.maxLength);
  w.int(12, s.minLength);
  w.string(13, typeof s.pattern === "string" ? s.pattern : undefined);
  w.int(14, s.maxItems);
  w.int(15, s.minItems);
  w.bool(16, s.uniqueItems);
  w.int(17, s.maxProperties);
  w.int(18, s.minProperties);
  for (const r of Array.isArray(s.required) ? s.required : []) w.string(19, String(r));
  for (const e of Array.isArray(s.enum) ? s.enum : []) w.message(20, anyMsg(e));
  if (s.additionalProperties !== undefined) {
    const ap = new Writer();
    if (isObj(s.additionalProperties)) ap.message(1, schemaMsg(s.additionalProperties));
    else ap.bool(2, s.additionalProperties === true);
    w.message(21, ap);
  }
  if (s.type !== undefined) {
    const t = new Writer();
    for (const x of Array.isArray(s.type) ? s.type : [s.type]) t.string(1, String(x));
    w.message(22, t);
  }
  if (s.items !== undefined) {
    const it = new Writer();
    for (const x of Array.isArray(s.items) ? s.items : [s.items]) if (isObj(x)) it.message(1, schemaMsg(x));
    w.message(23, it);
  }
  for (const x of Array.isArray(s.allOf) ? s.allOf : []) if (isObj(x)) w.message(24, schemaMsg(x));
  if (isObj(s.properties)) {
    const p = new Writer();
    for (const [name, x] of Object.entries(s.properties)) {
      const ns = new Writer();
      ns.string(1, name);
      ns.message(2, schemaMsg(asObj(x) ?? {}));
      p.message(1, ns);
    }
    w.message(25, p);
  }
  w.bool(27, s.readOnly);
  if (s.example !== undefined) w.message(30, anyMsg(s.example));
  for (const [k, x] of Object.entries(s)) if (k.startsWith("x-")) w.message(31, namedAny(k, x));
  return w;
}

/** openapi_v2.Document as protobuf. */
export function encodeOpenAPIv2(doc: Obj): Buffer {
  const w = new Writer();
  w.string(1, String(doc.swagger ?? "2.0"));
  const info = new Writer();
  info.string(1, String(asObj(doc.info)?.title ?? ""));
  info.string(2, String(asObj(doc.info)?.version ?? ""));
  w.message(2, info);
  w.message(8, new Writer());
  const defs = new Writer();
  for (const [name, s] of Object.entries(asObj(doc.definitions) ?? {})) {
    const ns = new Writer();
    ns.string(1, name);
    ns.message(2, schemaMsg(asObj(s) ?? {}));
    defs.message(1, ns);
  }
  w.message(9, defs);
  return w.finish();
}
