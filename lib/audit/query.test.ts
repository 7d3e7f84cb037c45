import { describe, expect, it } from "vitest";
import { csvLine, csvHeader, type AuditEventDto } from "./query";

const event: AuditEventDto = {
  id: "7",
  at: "2024-05-01T14:00:00.000Z",
  actorType: "user",
  actorId: "u1",
  actorName: "alice",
  action: "pause.created",
  targetType: "pause",
  targetId: "p1",
  environment: "production",
  reason: 'hotfix, "urgent"\nline two',
  before: null,
  after: { expiresAt: "2024-05-01T16:00:00.000Z" },
  prevHash: "a",
  hash: "b",
};

describe("audit CSV", () => {
  it("quotes commas, quotes and newlines so every event stays one record", () => {
    const line = csvLine(event);
    expect(line).toContain('"hotfix, ""urgent""\nline two"');
    expect(line).toContain('"{""expiresAt"":""2024-05-01T16:00:00.000Z""}"');
    expect(line.startsWith("7,2024-05-01T14:00:00.000Z,user,alice,pause.created,")).toBe(true);
    expect(csvHeader().startsWith("id,at,actorType,actorName,action,")).toBe(true);
  });
  it("defuses cells a spreadsheet would run as formulas", () => {
    expect(csvLine({ ...event, reason: "=HYPERLINK(\"http://x\")" })).toContain("'=HYPERLINK");
    expect(csvLine({ ...event, actorName: "@evil" })).toContain(",'@evil,");
  });
});
