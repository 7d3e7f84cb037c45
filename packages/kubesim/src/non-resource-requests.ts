// Paths outside the resource tree: /version, health checks, discovery
// (legacy and aggregated) and the OpenAPI documents.
import type { IncomingMessage, ServerResponse } from "node:http";
import { authorize, type RequestAttributes, type User } from "./auth";
import { aggregatedDiscovery, AGGREGATED_CONTENT_TYPE, apiGroup, apiGroupList, apiVersions, resourceList, SERVER_VERSION } from "./discovery";
import { parseAccept, send } from "./http-io";
import { docHash, openAPIv3Document, openAPIv3Root } from "./openapi";
import { encodeOpenAPIv2, etagOf, openAPIv2Document, OPENAPI_V2_PROTOBUF } from "./openapi-v2";
import type { Registry } from "./registry";
import { notFoundPath } from "./resource-requests";

/** Answers a non-resource request; false when the path is a resource path. */
export function serveNonResource(registry: Registry, hostPort: string, req: IncomingMessage, res: ServerResponse, p: string, segs: string[], user: User): boolean {
  const nonResource = (verb: string) => {
    const a: RequestAttributes = { resourceRequest: false, verb, group: "", resource: "", subresource: "", namespace: "", name: "", path: p };
    const denied = authorize(user, a);
    if (denied) throw denied;
  };
  if (p === "/version") {
    nonResource("get");
    send(res, 200, SERVER_VERSION);
    return true;
  }
  if (p === "/healthz" || p === "/livez" || p === "/readyz") {
    nonResource("get");
    send(res, 200, "ok", "text/plain; charset=utf-8");
    return true;
  }
  if (p === "/api" || p === "/apis") {
    nonResource("get");
    const wantsAggregated = parseAccept(req.headers.accept).some((a) => a.params.as === "APIGroupDiscoveryList" && a.params.v === "v2" && a.params.g === "apidiscovery.k8s.io");
    if (wantsAggregated) send(res, 200, aggregatedDiscovery(registry, p === "/api"), AGGREGATED_CONTENT_TYPE);
    else if (p === "/api") send(res, 200, apiVersions(hostPort));
    else send(res, 200, apiGroupList(registry));
    return true;
  }
  if (segs[0] === "openapi") {
    nonResource("get");
    if (segs[1] === "v2" && segs.length === 2) {
      const doc = openAPIv2Document(registry);
      // client-go's discovery asks for protobuf only; other clients (and browsers) get JSON.
      const proto = (req.headers.accept ?? "").includes("protobuf");
      const body = proto ? encodeOpenAPIv2(doc) : JSON.stringify(doc);
      res.setHeader("Etag", etagOf(body));
      if (proto) {
        res.writeHead(200, { "Content-Type": OPENAPI_V2_PROTOBUF, "Cache-Control": "no-cache, private" });
        res.end(body);
      } else send(res, 200, body);
      return true;
    }
    if (segs[1] === "v3" && segs.length === 2) {
      send(res, 200, openAPIv3Root(registry));
      return true;
    }
    if (segs[1] === "v3") {
      const rest = segs.slice(2);
      const doc = rest[0] === "api" && rest.length === 2 ? openAPIv3Document(registry, "", rest[1] as string) : rest[0] === "apis" && rest.length === 3 ? openAPIv3Document(registry, rest[1] as string, rest[2] as string) : undefined;
      if (!doc) throw notFoundPath();
      res.setHeader("Etag", `"${docHash(doc)}"`);
      send(res, 200, doc);
      return true;
    }
    throw notFoundPath();
  }
  if (segs[0] === "api" && segs.length === 2) {
    nonResource("get");
    const rl = resourceList(registry, "", segs[1] as string);
    if (!rl) throw notFoundPath();
    send(res, 200, rl);
    return true;
  }
  if (segs[0] === "apis" && segs.length === 2) {
    nonResource("get");
    const g = apiGroup(registry, segs[1] as string);
    if (!g) throw notFoundPath();
    send(res, 200, g);
    return true;
  }
  if (segs[0] === "apis" && segs.length === 3) {
    nonResource("get");
    const rl = resourceList(registry, segs[1] as string, segs[2] as string);
    if (!rl) throw notFoundPath();
    send(res, 200, rl);
    return true;
  }
  return false;
}
