import { defineConfig } from "vitest/config";
import path from "node:path";

const alias = { "@": path.resolve(import.meta.dirname) };

// Five projects: pure unit tests beside the code, integration tests that need
// a real Postgres (started once by the global setup), the fault suite, the
// differential conformance of kubesim against a real kube-apiserver, and the
// API contract fuzzing (schemathesis against a running demo it starts itself).
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts", "packages/*/src/**/*.test.ts", "demo/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.fault.test.ts", "node_modules/**"],
          environment: "node",
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["lib/**/*.int.test.ts", "test/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/setup/global-postgres.ts"],
          env: { LOG_LEVEL: "warn" },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "faults",
          include: ["lib/**/*.fault.test.ts", "test/faults/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/setup/global-postgres.ts"],
          env: { LOG_LEVEL: "warn" },
          testTimeout: 120_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "conformance",
          include: ["test/conformance/**/*.test.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 90_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "contract",
          include: ["test/contract/**/*.test.ts"],
          environment: "node",
          env: { LOG_LEVEL: "warn" },
          testTimeout: 600_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
