import { describe, expect, it } from "vitest";
import { lineOf, splitSqlStatements } from "./sql-statements";

describe("splitSqlStatements", () => {
  it("splits on semicolons and reports where each statement starts", () => {
    const sql = "-- header\nCREATE TABLE a (id int);\n\nALTER TABLE b ADD x int;\n";
    const parts = splitSqlStatements(sql);
    expect(parts.map((p) => p.text)).toEqual(["-- header\nCREATE TABLE a (id int)", "ALTER TABLE b ADD x int"]);
    expect(parts.map((p) => lineOf(sql, p.offset))).toEqual([1, 4]);
  });

  it.each([
    ["a string", "INSERT INTO t VALUES ('a;b', 'it''s;');SELECT 1"],
    ["a quoted identifier", 'CREATE TABLE "we;ird" (id int);SELECT 1'],
    ["a line comment", "SELECT 1 -- not here;\n;SELECT 1"],
    ["a nested block comment", "SELECT /* a /* b; */ c; */ 1;SELECT 1"],
    ["a dollar-quoted body", "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql;SELECT 1"],
    ["a tagged dollar quote", "DO $body$ BEGIN PERFORM 1; END $body$;SELECT 1"],
  ])("does not split inside %s", (_what, sql) => {
    expect(splitSqlStatements(sql)).toHaveLength(2);
  });

  it("drops empty and comment-only pieces", () => {
    expect(splitSqlStatements(";;\n-- only a comment\n;  ")).toEqual([]);
  });
});
