import { describe, expect, it } from "vitest";
import { CursorError, decodeCursor, encodeCursor } from "./cursor";

const id = "3f2b8c1e-0000-4000-8000-000000000001";

describe("drift cursors", () => {
  it("round-trip the sort value and id, including values with quotes, slashes and no value at all", () => {
    for (const value of ["apps/Deployment/shop/api", 'we"ird/\\name', "2025-03-10T12:00:00.000Z", null]) {
      const c = { sort: "key" as const, dir: "desc" as const, value, id };
      expect(decodeCursor(encodeCursor(c), { sort: "key", dir: "desc" })).toEqual(c);
    }
  });

  it("are URL-safe", () => {
    expect(encodeCursor({ sort: "openedAt", dir: "asc", value: "?&=+/", id })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("reject garbage and tampering with a message", () => {
    expect(() => decodeCursor("not-a-cursor", { sort: "key", dir: "asc" })).toThrow(CursorError);
    const forged = Buffer.from(JSON.stringify({ s: "key", d: "asc", v: "x", i: "'; drop table" })).toString("base64url");
    expect(() => decodeCursor(forged, { sort: "key", dir: "asc" })).toThrow("cursor is not one this API issued");
  });

  it("reject a cursor issued for another sort order", () => {
    const c = encodeCursor({ sort: "openedAt", dir: "asc", value: null, id });
    expect(() => decodeCursor(c, { sort: "key", dir: "asc" })).toThrow(/issued for sort=openedAt/);
  });
});
