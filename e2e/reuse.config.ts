// Runs the suite against a demo that is already running (no build, no replay):
//   E2E_PORT=3108 E2E_DATA_DIR=/tmp/my-demo npx playwright test -c e2e/reuse.config.ts
// where the demo was started with PORT=3108 DRIFTWATCH_DATA_DIR=/tmp/my-demo.
import { defineConfig } from "@playwright/test";
import base from "../playwright.config";

export default defineConfig({
  ...base,
  testDir: ".",
  outputDir: "../test-results",
  globalSetup: "./support/reuse-setup.ts",
  globalTeardown: "./support/reuse-teardown.ts",
});
