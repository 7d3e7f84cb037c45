// The dark theme is the light palette mirrored (app/dark-theme.css): these
// tests keep the mirror true to the installed Tailwind and complete for every
// colour the components use, so a new colour cannot stay light in dark mode.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseThemeChoice, THEME_SCRIPT, THEME_STORAGE_KEY } from "./theme-choice";

const root = path.resolve(__dirname, "../..");
const MIRROR: Record<string, string> = { "50": "950", "100": "900", "200": "800", "300": "700", "400": "500", "500": "400", "600": "300", "700": "200", "800": "100", "900": "50", "950": "50" };

function variables(css: string): Map<string, string> {
  return new Map([...css.matchAll(/--color-([a-z]+-\d+): ([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts") ? [p] : [];
  });
}

describe("the dark palette", () => {
  const tailwind = variables(fs.readFileSync(path.join(root, "node_modules/tailwindcss/theme.css"), "utf8"));
  const dark = variables(fs.readFileSync(path.join(root, "app/dark-theme.css"), "utf8"));

  it("gives each shade the installed Tailwind value of its mirror shade", () => {
    expect(dark.size).toBeGreaterThan(100);
    for (const [name, value] of dark) {
      const [palette, shade] = name.split("-") as [string, string];
      expect(value, `--color-${name}`).toBe(tailwind.get(`${palette}-${MIRROR[shade]}`));
    }
  });

  it("covers every colour class used in app/ and components/", () => {
    const used = new Set<string>();
    for (const file of [...sourceFiles(path.join(root, "app")), ...sourceFiles(path.join(root, "components"))]) {
      const text = fs.readFileSync(file, "utf8");
      for (const m of text.matchAll(/\b(?:bg|text|border|ring|fill|stroke|divide|outline|decoration|from|to|via|accent|placeholder)-([a-z]+-\d{2,3})\b/g)) used.add(m[1]!);
    }
    expect(used.size).toBeGreaterThan(20);
    const missing = [...used].filter((c) => tailwind.has(c) && !dark.has(c));
    expect(missing, "colours with no dark shade in app/dark-theme.css").toEqual([]);
  });
});

describe("the theme choice", () => {
  it("pins light or dark and follows the system otherwise", () => {
    expect(parseThemeChoice("dark")).toBe("dark");
    expect(parseThemeChoice("light")).toBe("light");
    expect(parseThemeChoice("system")).toBe("system");
    expect(parseThemeChoice(null)).toBe("system");
    expect(parseThemeChoice("purple")).toBe("system");
  });

  it("the head script sets data-theme only for a pinned choice, and survives refused storage", () => {
    const run = (stored: string | null, storageThrows = false) => {
      const attributes: Record<string, string> = {};
      const localStorage = {
        getItem: (key: string) => {
          if (storageThrows) throw new Error("SecurityError");
          return key === THEME_STORAGE_KEY ? stored : null;
        },
      };
      const document = { documentElement: { setAttribute: (k: string, v: string) => (attributes[k] = v) } };
      new Function("localStorage", "document", THEME_SCRIPT)(localStorage, document);
      return attributes["data-theme"];
    };
    expect(run("dark")).toBe("dark");
    expect(run("light")).toBe("light");
    expect(run(null)).toBeUndefined();
    expect(run("<script>")).toBeUndefined();
    expect(run("dark", true)).toBeUndefined();
  });
});
