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
