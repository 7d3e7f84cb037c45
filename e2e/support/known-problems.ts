// Why a test is `test.fixme` today: one line per problem, naming the page and
// the cause, so the owners can find it and E2E_RUN_FIXME=1 can prove the fix.
export const KNOWN = {
  scaleWithoutTime:
    "object page /environments/production/objects/apps/Deployment/shop/api shows When \"—\": lib/kubesim records the kubectl /scale managedFields entry without `time` (a real API server always sets it)",
  phoneOverflow:
    "/environments/production at 390 px is ~180 px wider than the phone: the Revisions, Ignored-by-rule and Rollback guidance panels grow to the longest one-line commit message (RevisionLine `truncate` inside grid items without min-w-0)",
  diffMisaligned:
    "object page /environments/production/objects/apps/Deployment/shop/worker: the side-by-side diff marks the unchanged `- name: QUEUE / value: orders` lines as removed/changed because the env var added above them shifts the line pairing",
} as const;
