// Which files of a repository are in the artifact source-controller hands
// kustomize-controller: its default exclusions and the repository's own
// `.sourceignore` files, matched with gitignore rules as go-git's gitignore
// package does (Go's filepath.Match per path element).

// source-controller leaves these out of the artifact kustomize-controller reads
// (sourceignore's VCS, extension, CI and extra defaults), below any `.sourceignore`.
const DEFAULT_IGNORE = [
  ".git/",
  ".gitignore",
  ".gitmodules",
  ".gitattributes",
  "*.jpg",
  "*.jpeg",
  "*.gif",
  "*.png",
  "*.wmv",
  "*.flv",
  "*.tar.gz",
  "*.zip",
  ".github/",
  ".circleci/",
  ".travis.yml",
  ".gitlab-ci.yml",
  "appveyor.yml",
  ".drone.yml",
  "cloudbuild.yaml",
  "codeship-services.yml",
  "codeship-steps.yml",
  "**/.goreleaser.yml",
  "**/.sops.yaml",
  "**/.flux.yaml",
];

interface IgnorePattern {
  domain: string[];
  parts: string[];
  inclusion: boolean;
  dirOnly: boolean;
  isGlob: boolean;
}

/** One gitignore line as Flux's sourceignore parses it, scoped to the folder (`domain`) of its file. */
function parseIgnore(line: string, domain: string[]): IgnorePattern {
  let p = line;
  const inclusion = p.startsWith("!");
  if (inclusion) p = p.slice(1);
  if (!p.endsWith("\\ ")) p = p.replace(/ +$/, "");
  const dirOnly = p.endsWith("/");
  if (dirOnly) p = p.slice(0, -1);
  return { domain, parts: p.split("/"), inclusion, dirOnly, isGlob: p.includes("/") };
}

// Go's filepath.Match on one path element: `*`, `?`, `[...]`/`[^...]`, `\` escapes.
function elementMatch(pattern: string, name: string): boolean {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "\\" && i + 1 < pattern.length) re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 1);
      if (close < 0) return false;
      const body = pattern.slice(i + 1, close);
      re += `[${body.startsWith("^") ? "^" + body.slice(1) : body}]`;
      i = close;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  try {
    return new RegExp(`^${re}$`, "s").test(name);
  } catch {
    return false;
  }
}

function patternMatches(p: IgnorePattern, path: string[], isDir: boolean): boolean {
  if (path.length <= p.domain.length || p.domain.some((d, i) => path[i] !== d)) return false;
  let rest = path.slice(p.domain.length);
  if (!p.isGlob) {
    return rest.some((name, i) => elementMatch(p.parts[0]!, name) && !(p.dirOnly && !isDir && i === rest.length - 1));
  }
  let matched = false;
  let canTraverse = false;
  for (let i = 0; i < p.parts.length; i++) {
    const part = p.parts[i]!;
    if (part === "") {
      canTraverse = false;
      continue;
    }
    if (part === "**") {
      if (i === p.parts.length - 1) break;
      canTraverse = true;
      continue;
    }
    if (part.includes("**") || rest.length === 0) return false;
    if (canTraverse) {
      canTraverse = false;
      while (rest.length > 0) {
        const e = rest[0]!;
        rest = rest.slice(1);
        if (elementMatch(part, e)) {
          matched = true;
          break;
        } else if (rest.length === 0) matched = false;
      }
    } else {
      if (!elementMatch(part, rest[0]!)) return false;
      matched = true;
      rest = rest.slice(1);
    }
  }
  if (matched && p.dirOnly && !isDir && rest.length === 0) matched = false;
  return matched;
}

/** The last matching pattern decides, as in git. */
function ignored(patterns: readonly IgnorePattern[], path: string[], isDir: boolean): boolean {
  for (let i = patterns.length - 1; i >= 0; i--) {
    const p = patterns[i]!;
    if (patternMatches(p, path, isDir)) return !p.inclusion;
  }
  return false;
}

const DEFAULT_PATTERNS = DEFAULT_IGNORE.map((l) => parseIgnore(l, []));

/**
 * The files of a repository that end up in source-controller's artifact:
 * without its default exclusions and what `.sourceignore` files (each scoped
 * to its own folder) exclude; a folder excluded takes its whole content.
 */
export function fluxArtifactFiles(repoFiles: readonly string[], sourceIgnores: ReadonlyArray<{ dir: string; text: string }> = []): string[] {
  const patterns = [...DEFAULT_PATTERNS];
  for (const { dir, text } of sourceIgnores) {
    const domain = dir ? dir.split("/") : [];
    for (const line of text.split(/\r?\n/)) if (!line.startsWith("#") && line.trim()) patterns.push(parseIgnore(line, domain));
  }
  return repoFiles.filter((f) => {
    const parts = f.split("/");
    for (let i = 1; i < parts.length; i++) if (ignored(patterns, parts.slice(0, i), true)) return false;
    return !ignored(patterns, parts, false);
  });
}

/** Whether source-controller's default ignore rules keep a repository file out of the artifact. */
export function excludedFromFluxArtifact(repoPath: string): boolean {
  return fluxArtifactFiles([repoPath]).length === 0;
}
