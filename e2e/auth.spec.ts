import { test, expect, ACCOUNTS } from "./fixtures";
import { SignInPage } from "./pages/signinPage";
import { NavBar } from "./pages/navBar";

async function sessionUser(page: import("@playwright/test").Page): Promise<{ username: string; role: string } | null> {
  return ((await (await page.request.get("/api/auth/session")).json()) as { user: { username: string; role: string } | null }).user;
}

test.describe("signing in", () => {
  test.use({ role: null });

  test("a signed-out visitor is sent to the sign-in form and lands back where they were going", async ({ page, capture }) => {
    await page.goto("/timeline");
    await expect(page).toHaveURL(/\/signin\?next=%2Ftimeline/);
    const signin = new SignInPage(page);
    await expect(signin.heading).toBeVisible();
    await capture(page, "signin");
    await signin.signIn(ACCOUNTS.operator.username, ACCOUNTS.operator.password);
    await expect(page).toHaveURL(/\/timeline$/);
    await expect(page.getByRole("heading", { level: 1, name: "Timeline" })).toBeVisible();
    expect(await sessionUser(page)).toMatchObject({ username: "operator", role: "operator" });
  });

  test("a wrong password is refused with a message and no session", async ({ page }) => {
    const signin = new SignInPage(page);
    await signin.open();
    await signin.signIn(ACCOUNTS.operator.username, "not-the-password");
    await expect(signin.error).toHaveText(/wrong username or password/i);
    await expect(page).toHaveURL(/\/signin/);
    expect(await sessionUser(page)).toBeNull();
  });
});

test.describe("signed in", () => {
  test("the nav bar shows who is signed in, with their role and a Sign out button", async ({ page }) => {
    await page.goto("/");
    const nav = new NavBar(page);
    await expect(nav.user(ACCOUNTS.operator.displayName)).toBeVisible();
    await expect(nav.role("operator")).toBeVisible();
    await expect(nav.nav.getByRole("button", { name: "Sign out" })).toBeVisible();
  });
});

test.describe("responses served again to the next reader (lib/server/shared-responses)", () => {
  const nonceOf = (csp: string | undefined) => /'nonce-([^']+)'/.exec(csp ?? "")?.[1] ?? "";
  /** `a` around the first place it differs from `b` (all of it when they are equal): a readable failure. */
  const around = (a: string, b: string) => {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return i === a.length && a.length === b.length ? a : a.slice(Math.max(0, i - 300), i + 300);
  };

  test("every shared page and read is the same for two users of one role, apart from the nonce", async ({ page, playwright, baseURL }) => {
    // Signed in through the API, each in a request context of its own.
    const signedIn = async (username: string, password: string) => {
      const ctx = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
      const res = await ctx.post("/api/auth/signin", { data: { username, password }, headers: { origin: baseURL ?? "" } });
      expect(res.status(), `signing in as ${username}`).toBe(200);
      return ctx;
    };
    const admin = await signedIn(ACCOUNTS.admin.username, ACCOUNTS.admin.password);
    let second: Awaited<ReturnType<typeof signedIn>> | null = null;
    try {
      // A second operator, made by the admin as an admin would.
      const { csrfToken } = (await (await admin.get("/api/auth/session")).json()) as { csrfToken: string };
      const made = await admin.post("/api/users", {
        data: { username: "operator-two", role: "operator", password: "operator-two-pass", displayName: "Otto Operator" },
        headers: { "x-csrf-token": csrfToken, origin: baseURL ?? "" },
      });
      expect([201, 409]).toContain(made.status()); // 409: made by an earlier run against the same demo
      second = await signedIn("operator-two", "operator-two-pass");

      // Every page on lib/api/shareable.ts's SHARED_PAGES and every sharedReadRoute, with the demo's names.
      const shared = ["/", "/environments/production", "/api/environments", "/api/environments/production", "/api/environments/production/drift"];
      for (const url of shared) {
        // Rendered for each of them (a request asking for a fresh answer bypasses the kept one); the demo's
        // collector may change the data between the two renders, so a few tries.
        let pair: string[] = [];
        for (let attempt = 0; attempt < 8; attempt++) {
          const answers = await Promise.all([page.request, second].map((r) => r!.get(url, { headers: { "cache-control": "no-cache" } })));
          for (const a of answers) {
            expect(a.status(), url).toBe(200);
            expect(a.headers()["cache-control"], url).toBe("no-cache");
            expect(a.headers()["x-driftwatch-cache"], url).toBeUndefined();
          }
          pair = await Promise.all(answers.map(async (a) => (await a.text()).replaceAll(nonceOf(a.headers()["content-security-policy"]) || "\u0000", "NONCE")));
          if (pair[0] === pair[1]) break;
          await page.waitForTimeout(500);
        }
        expect(around(pair[1] ?? "", pair[0] ?? ""), `${url} rendered for operator-two differs from the one rendered for operator`).toBe(around(pair[0] ?? "", pair[1] ?? ""));
        expect(pair[0], url).not.toContain(ACCOUNTS.operator.displayName);
      }
      // Pages and reads not on the lists stay private, and are never served from the kept responses.
      for (const url of ["/lineage", "/timeline", "/audit", "/environments/production/objects/apps/Deployment/shop/api", "/api/auth/session", "/api/timeline"]) {
        const res = await page.request.get(url);
        expect(res.headers()["cache-control"], url).toMatch(/private|no-store/);
        expect(res.headers()["x-driftwatch-cache"], url).not.toBe("hit");
      }
    } finally {
      await admin.dispose();
      await second?.dispose();
    }
  });

  test("a kept page comes with a nonce of its own, its scripts run, and it is never given to a signed-out visitor", async ({ page, playwright, baseURL }) => {
    // Two reads in a row; the demo's collector may move the data in between, so try a few times.
    let first = { nonce: "", body: "" };
    let hit = { nonce: "", body: "", cache: "" };
    await expect
      .poll(
        async () => {
          const a = await page.request.get("/environments/staging");
          first = { nonce: nonceOf(a.headers()["content-security-policy"]), body: await a.text() };
          const b = await page.request.get("/environments/staging");
          hit = { nonce: nonceOf(b.headers()["content-security-policy"]), body: await b.text(), cache: b.headers()["x-driftwatch-cache"] ?? "" };
          return hit.cache;
        },
        { timeout: 30_000 },
      )
      .toBe("hit");
    expect(hit.nonce).not.toBe(first.nonce);
    expect(hit.body).toContain(`nonce="${hit.nonce}"`);
    expect(hit.body).not.toContain(first.nonce);

    // In the browser, the kept page's scripts run under its new nonce: the signed-in user menu (rendered by script) appears.
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    await page.goto("/environments/staging");
    await page.goto("/environments/staging");
    await expect(new NavBar(page).user(ACCOUNTS.operator.displayName)).toBeVisible();
    expect(refused).toEqual([]);

    const anonymous = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    try {
      const res = await anonymous.get("/environments/staging", { maxRedirects: 0 });
      expect(res.status()).toBe(307);
      expect(res.headers()["location"]).toContain("/signin?next=%2Fenvironments%2Fstaging");
      // The polled dashboard reads are shared the same way, and just as closed to a signed-out client.
      await expect.poll(async () => (await page.request.get("/api/environments")).headers()["x-driftwatch-cache"], { timeout: 30_000 }).toBe("hit");
      expect((await anonymous.get("/api/environments")).status()).toBe(401);
    } finally {
      await anonymous.dispose();
    }
  });

  test("a page that turned out not to exist is not kept", async ({ page }) => {
    for (let i = 0; i < 3; i++) {
      const res = await page.request.get("/environments/no-such-environment");
      expect(await res.text()).toContain("NEXT_HTTP_ERROR_FALLBACK");
      expect(res.headers()["x-driftwatch-cache"]).toBe("miss");
    }
  });
});
