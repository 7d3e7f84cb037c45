// Why a test is `test.fixme` today: one line per problem, naming the page and
// the cause, so the owners can find it and E2E_RUN_FIXME=1 can prove the fix.
// None today: the last three (a /scale change without a time, the diff after an
// inserted list item, the production page on a phone) were fixed or, for the
// first, found to be how Kubernetes itself behaves.
export const KNOWN: Readonly<Record<string, string>> = {};
