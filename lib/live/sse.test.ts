import { describe, expect, it } from "vitest";
import { parseSse, reconnectDelayMs } from "./sse";
import { sseMessage } from "./stream";

describe("parseSse", () => {
  it("reads what the server writes", () => {
    const text = sseMessage("ready", { heartbeatMs: 15_000 }, 1_000) + sseMessage("change", { tables: ["DriftItem"] });
    expect(parseSse(text)).toEqual({
      events: [
        { event: "ready", data: '{"heartbeatMs":15000}' },
        { event: "change", data: '{"tables":["DriftItem"]}' },
      ],
      rest: "",
    });
  });

  it("keeps an event that has not fully arrived for the next chunk", () => {
    const whole = sseMessage("change", { tables: ["Alert"] });
    const first = parseSse(whole.slice(0, 10));
    expect(first.events).toEqual([]);
    expect(parseSse(first.rest + whole.slice(10)).events).toEqual([{ event: "change", data: '{"tables":["Alert"]}' }]);
  });

  it("skips comments, joins data lines, reads CRLF, and names an unnamed event 'message'", () => {
    expect(parseSse(": keep-alive\r\n\r\ndata: a\r\ndata: b\r\n\r\n").events).toEqual([{ event: "message", data: "a\nb" }]);
  });
});

describe("reconnectDelayMs", () => {
  it("doubles from 1 s up to 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((a) => reconnectDelayMs(a, 0))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
  it("spreads tabs by at most a fifth", () => {
    expect(reconnectDelayMs(0, 1)).toBe(1_200);
  });
});
