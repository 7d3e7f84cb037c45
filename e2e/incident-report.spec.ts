import { test, expect } from "./fixtures";
import { IncidentReportPage } from "./pages/incidentReportPage";
import { pdfText } from "./support/pdf-text";

/** The PDF's text with every run of white space as one space: line breaks fall where the paper's width puts them. */
const flat = (s: string) => s.replace(/\s+/g, " ");

test.describe("incident report", () => {
  test("production's last 24 hours print to an A4 PDF that tells a manager what happened, who owns it and how it returns to Git", async ({ page, capture }, testInfo) => {
    const report = new IncidentReportPage(page);
    await report.open("env=production");
    await expect(report.heading).toHaveText("Incident report: production");
    await expect(report.summary).toContainText(/2 drift items opened/);

    await page.emulateMedia({ media: "print" });
    // Paper gets the content only.
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await expect(report.form).toBeHidden();
    await expect(page.getByRole("button", { name: "Print or save as PDF" })).toBeHidden();
    await capture(page, "incident-report");

    const pdf = await page.pdf({ format: "A4", printBackground: true });
    await testInfo.attach("incident-report.pdf", { body: pdf, contentType: "application/pdf" });
    const { pages, text } = pdfText(pdf);
    testInfo.annotations.push({ type: "pdf", description: `${pages.length} A4 pages, ${pdf.length} bytes` });
    const all = flat(text);
    expect(pages.length, "sections on the first pages, the timeline after a page break").toBeGreaterThanOrEqual(2);

    // Header: what, when, by whom.
    expect(all).toContain("Incident report: production");
    expect(all).toMatch(/Window \d{4}-\d\d-\d\d \d\d:\d\d UTC to \d{4}-\d\d-\d\d \d\d:\d\d UTC \(24 h\)/);
    expect(all).toMatch(/Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC by Oona Operator/);
    // The summary sentence a manager quotes.
    expect(all).toMatch(/Summary: 2 drift items opened, 0 resolved, 0 pauses, 3 alerts; median lead time \d[^;.]* over \d+ commits that went live\./);

    // Drift: the hand scale is owned by Olivia with a revert path; the hand edit of worker is nobody's.
    const drift = flat(pages[0]!);
    expect(drift).toContain("Drift opened and resolved");
    expect(drift).toMatch(/Deployment shop\/api Modified kubectl \(human\) \S+ \S+ UTC Olivia \(on call\) revert to Git still open/);
    expect(drift).toMatch(/Deployment shop\/worker Modified kubectl-edit \(human\) \S+ \S+ UTC nobody — still open/);

    // Pauses, alerts and lead times, each said plainly.
    expect(all).toContain("No reconciliation was paused in this window.");
    // One rotated credential is one alert, however many of production's applications it holds up.
    expect(all).toMatch(/Alerts .*critical production: GitRepository\/flux-system\/flux-system is failing \(AuthenticationFailed\), holding up 8 applications \S+ \S+ UTC still open/);
    expect(all).toContain("production: 1 drifted object with no owner");
    // The stale alert names the application that is behind.
    expect(all).toMatch(/production\/flux-system\/shop-api is stale: [0-9a-f]+ approved \d+ (min|h) ago/);
    // Production's api application counts api 1.7.0 from its promotion to staging (the same application, by promotion
    // key, one environment earlier; demo/script.ts), not from the commit that promoted it to production.
    expect(all).toMatch(/Lead times \(commit → live\) Median lead time \d[^.]* over \d+ commits\./);
    expect(all).toMatch(/[0-9a-f]{7} promote to staging: api: 1\.7\.0 moves sessions to redis changes staging \S+ \S+ \S+ \S+ UTC \S+ \S+ UTC \d+ h( \d+ min)?/);

    // The timeline starts on its own page, oldest first, with the claim's reason.
    const timelineAt = pages.findIndex((p) => flat(p).includes("Timeline Time What happened Who"));
    expect(timelineAt, "the timeline's heading and table header").toBeGreaterThan(0);
    const timeline = flat(pages.slice(timelineAt).join("\n"));
    expect(flat(pages[timelineAt]!).startsWith("Timeline")).toBe(true);
    const scaled = timeline.indexOf("Drift opened: Deployment shop/api (Modified)");
    const claimed = timeline.indexOf("Divergence claimed");
    expect(scaled).toBeGreaterThan(0);
    expect(claimed).toBeGreaterThan(scaled);
    expect(timeline).toContain("Absorbing the checkout retry storm by hand");
    // Production is many applications: the 1.8.0 promotion is approved for the api's alone, and none of them runs it.
    const promoted = timeline.search(/Commit [0-9a-f]{7}: promote to production: api: 1\.8\.0 adds checkout retries with backoff/);
    expect(promoted).toBeGreaterThan(0);
    const approvedFor = timeline.slice(promoted).match(/flux-system\/(\S+) in production approved [0-9a-f]{7}/g) ?? [];
    expect(approvedFor.map((e) => e.split(" ")[0])).toEqual(["flux-system/shop-api"]);
    expect(timeline.slice(promoted)).not.toMatch(/in production now runs/);
    // Nothing from other environments, and none of the screen's controls.
    expect(all).not.toMatch(/staging now runs|shop-test|Show report|Print or save as PDF|Environments Lineage Timeline/);
  });

  test("the form chooses another environment and window; a window with nothing in it says so", async ({ page, capture }) => {
    const report = new IncidentReportPage(page);
    await report.open();
    // With no environment asked for, the end of the promotion chain.
    await expect(report.heading).toHaveText("Incident report: production");
    await expect(report.form).toBeVisible();
    await capture(page, "incident-report-screen");

    await report.environment.selectOption("test");
    await report.form.getByRole("button", { name: "Show report" }).click();
    await expect(report.heading).toHaveText("Incident report: test");
    await expect(page).toHaveURL(/env=test/);
    const pauses = report.section("Pauses");
    await expect(pauses).toContainText("Load-testing api 1.8.0 in test");
    await expect(pauses).toContainText("still paused");
    await expect(report.summary).toContainText(/1 pause \(\d+ min\)/);
    // Test's one application follows envs/test of a repository of its own: api 1.8.0 and web 2.5.0 went live today.
    await expect(report.section("Lead times (commit → live)")).toContainText(/Median lead time \d[^.]* over 2 commits\./);

    await report.from.fill("2020-01-01T00:00");
    await report.to.fill("2020-01-02T00:00");
    await report.form.getByRole("button", { name: "Show report" }).click();
    await expect(page).toHaveURL(/from=2020-01-01T00%3A00/);
    await expect(report.summary).toHaveText("Summary: 0 drift items opened, 0 resolved, 0 pauses, 0 alerts; no commit went live.");
    await expect(report.section("Drift opened and resolved")).toContainText("No drift opened or resolved in this window.");
    await expect(report.section("Pauses")).toContainText("No reconciliation was paused in this window.");
    await expect(report.section("Alerts")).toContainText("No alert was open in this window.");
    await expect(report.section("Lead times (commit → live)")).toContainText("No commit went live in test in this window.");
    await expect(report.section("Timeline")).toContainText("Nothing was recorded for this environment in this window.");
  });

  test("the timeline and the environment page link to the report", async ({ page }) => {
    await page.goto("/environments/production");
    await page.getByRole("link", { name: "incident report" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Incident report: production");

    await page.goto("/timeline?environment=staging");
    await page.getByRole("link", { name: "Printable incident report for this window" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Incident report: staging");
  });
});
