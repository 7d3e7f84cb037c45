// What a push webhook says, whichever host sent it: the branch that moved,
// its new tip, and every way the payload names the repository. GitHub,
// Gitea/Forgejo and GitLab put the clone URLs in different fields; the
// generic format accepts the same shapes or a plain `repository` string.

export interface PushInfo {
  /** Branch name without refs/heads/; null for a tag or no ref. */
  branch: string | null;
  ref: string | null;
  after: string | null;
  /** Every URL the payload gives for the repository (clone, SSH, web). */
  urls: string[];
  /** `owner/name` style paths and bare names the payload gives. */
  names: string[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 && v.length <= 2048 ? v : null;
}

const URL_FIELDS = ["clone_url", "ssh_url", "git_url", "html_url", "url", "git_http_url", "git_ssh_url", "web_url", "http_url", "ssh_url_to_repo", "http_url_to_repo", "homepage"];
const NAME_FIELDS = ["full_name", "path_with_namespace", "name"];

export function parsePush(payload: unknown): PushInfo {
  const info: PushInfo = { branch: null, ref: null, after: null, urls: [], names: [] };
  if (!isRecord(payload)) return info;
  const ref = str(payload.ref) ?? (str(payload.branch) ? `refs/heads/${str(payload.branch)}` : null);
  info.ref = ref;
  if (ref?.startsWith("refs/heads/")) info.branch = ref.slice("refs/heads/".length);
  info.after = str(payload.after) ?? str(payload.checkout_sha) ?? str(payload.sha);

  const add = (list: string[], v: unknown) => {
    const s = str(v);
    if (s && !list.includes(s)) list.push(s);
  };
  for (const holder of [payload.repository, payload.project]) {
    if (typeof holder === "string") {
      if (/[:/]/.test(holder)) add(info.urls, holder);
      else add(info.names, holder);
      continue;
    }
    if (!isRecord(holder)) continue;
    for (const f of URL_FIELDS) add(info.urls, holder[f]);
    for (const f of NAME_FIELDS) add(info.names, holder[f]);
  }
  return info;
}
