// The test object every spec imports: a signed-in browser context per role
// (signed in once per worker through the /signin form, then reused as storage
// state), the running demo's state, a kubectl helper and full-page screenshots.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test as base, expect, type Page, type TestInfo } from "@playwright/test";
import { readServerState, type E2EServerState } from "./support/server-state";
import { SignInPage } from "./pages/signinPage";
import { Kube } from "./support/kube";
import { settled, untilLive } from "./support/live";

export type Role = "viewer" | "operator" | "admin";

/** The demo's printed accounts (demo/users.ts). */
export const ACCOUNTS: Record<Role, { username: string; password: string; displayName: string }> = {
  viewer: { username: "viewer", password: "demo-viewer-pass", displayName: "Victor Viewer" },
  operator: { username: "operator", password: "demo-operator-pass", displayName: "Oona Operator" },
  admin: { username: "admin", password: "demo-admin-pass", displayName: "Ada Admin" },
};

interface WorkerFixtures {
  server: E2EServerState;
  /** Signs in as `role` through the form (once per worker) and returns the storage-state file. */
  signedInState: (role: Role) => Promise<string>;
  kube: Kube;
}

interface TestFixtures {
  /** Who the page is signed in as; `test.use({ role: "viewer" })` switches a file or describe block. */
  role: Role | null;
  /** Saves a full-page screenshot to e2e/screenshots/<name>.png for people to look at. */
  capture: (page: Page, name: string) => Promise<void>;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, provide) => {
      await provide(readServerState());
    },
    { scope: "worker" },
  ],

  signedInState: [
    async ({ browser, server }, provide, workerInfo) => {
      const files = new Map<Role, string>();
      await provide(async (role) => {
        const known = files.get(role);
        if (known) return known;
        const context = await browser.newContext({ baseURL: server.baseURL });
        try {
          const page = await context.newPage();
          const signin = new SignInPage(page);
          await signin.open();
          await signin.signIn(ACCOUNTS[role].username, ACCOUNTS[role].password);
          // The nav bar does not show the user yet (see auth.spec.ts), so the session answer is the proof.
          await expect(page).not.toHaveURL(/\/signin/, { timeout: 30_000 });
          const session = (await (await page.request.get("/api/auth/session")).json()) as { user: { username: string; role: string } | null };
          expect(session.user, `signing in as ${role} through the form`).toMatchObject({ username: ACCOUNTS[role].username, role });
          const file = path.join(os.tmpdir(), `driftwatch-e2e-auth-${process.pid}-${workerInfo.workerIndex}-${role}.json`);
          await context.storageState({ path: file });
          files.set(role, file);
          return file;
        } finally {
          await context.close();
        }
      });
      for (const file of files.values()) fs.rmSync(file, { force: true });
    },
    { scope: "worker" },
  ],

  kube: [
    async ({ server }, provide) => {
      await provide(new Kube(server.dataDir));
    },
    { scope: "worker" },
  ],

  role: ["operator", { option: true }],

  baseURL: async ({ server }, provide) => {
    await provide(server.baseURL);
  },

  storageState: async ({ role, signedInState }, provide) => {
    await provide(role ? await signedInState(role) : { cookies: [], origins: [] });
  },

  // eslint-disable-next-line no-empty-pattern
  capture: async ({}, provide, testInfo: TestInfo) => {
    const dir = path.join(testInfo.config.rootDir, "screenshots");
    await provide(async (page, name) => {
      fs.mkdirSync(dir, { recursive: true });
      // Let the page hydrate and its queries settle so the picture shows what a person would see, not a spinner.
      await untilLive(page, { timeout: 5_000, signedOut: true }).catch(() => undefined);
      await settled(page);
      await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
    });
  },
});

export { expect };
