import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

// The product never runs the imitation, the embedded Postgres supervisor or the demo: entry points
// (scripts/), tests, benches and tools hand them in (see lib/db/ensure-database.ts's EmbeddedDatabase).
const productImportBoundaries = [
  { group: ["@driftwatch/*", "**/packages/*", "@/packages/*"], message: "The product does not import support packages; entry points in scripts/ pass them in." },
  { group: ["@/demo", "@/demo/*", "**/demo/*"], message: "The product does not import the demo." },
  { group: ["@/test/*", "@/bench/*", "@/tools/*", "@/scripts/*"], message: "The product does not import test, bench, tool or script code." },
];

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".build/", ".data/", "lib/db/generated/", "bench/results/", "test-results/", "playwright-report/", "next-env.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    // Plain JavaScript run by Node.js (scripts/web-worker.mjs, configs).
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["lib/**/*.{ts,tsx}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: productImportBoundaries }] },
  },
  {
    // One env module: settings are parsed once with zod in lib/env; entry points (scripts/), tests, benches,
    // tools and config files may read process.env themselves.
    files: ["lib/**/*.{ts,tsx,mts,mjs}", "app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["lib/env/**", "**/*.test.ts", "**/test-support/**"],
    rules: {
      "no-restricted-properties": ["error", {
        object: "process",
        property: "env",
        message: "Read settings through lib/env (env(), namedVariable(), inheritedEnvironment()), not process.env.",
      }],
    },
  },
  {
    files: ["components/**/*.{ts,tsx}", "app/**/*-client.tsx"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [
        ...productImportBoundaries,
        { group: ["@/lib/db", "@/lib/db/*"], message: "Client components never import the database." },
        { group: ["@kubernetes/client-node", "simple-git"], message: "Client components never import server-only libraries." },
      ] }],
    },
  },
);
