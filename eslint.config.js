import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".data/", "lib/db/generated/", "bench/results/", "test-results/", "playwright-report/", "next-env.d.ts"] },
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
    files: ["components/**/*.{ts,tsx}", "app/**/*-client.tsx"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [
        { group: ["@/lib/db", "@/lib/db/*"], message: "Client components never import the database." },
        { group: ["@kubernetes/client-node", "simple-git"], message: "Client components never import server-only libraries." },
      ] }],
    },
  },
);
