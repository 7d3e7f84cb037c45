import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isSharedRead, SHARED_READ_ROUTES } from "./install-shared-responses";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

describe("shared API reads", () => {
  it("are the polled dashboard reads and nothing else", () => {
    for (const p of ["/api/environments", "/api/environments/production", "/api/environments/production/drift"]) expect(isSharedRead(p), p).toBe(true);
    for (const p of ["/api/environments/production/refresh", "/api/environments/production/objects/_/ConfigMap/shop/x", "/api/auth/session", "/api/users", "/api/claims", "/api/timeline", "/api/environments-x"]) {
      expect(isSharedRead(p), p).toBe(false);
    }
  });

  it("come from read-only routes whose answers do not depend on who asks", () => {
    for (const file of SHARED_READ_ROUTES) {
      const source = fs.readFileSync(path.join(ROOT, file), "utf8");
      expect(source, file).toMatch(/export const GET = jsonRoute\(/);
      expect(source, file).not.toMatch(/\b(user|session|cookies|headers)\b/);
      expect(source, file).not.toMatch(/export const (POST|PUT|PATCH|DELETE)\b/);
    }
  });
});
