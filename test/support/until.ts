// Waiting, in a test, for something another part of the system does on its own
// (a LISTEN connection, a notification, a stream): polled often, since these take
// milliseconds, and failing with what it waited for rather than the test's timeout.

/** Polls `check` every 10 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
