// The change that would make Git match live, for a claim whose return path is
// "adopt": the file in the repository and a unified diff of it, for the owner
// to commit through the normal review. Driftwatch never pushes it itself.
import path from "node:path";
import YAML from "yaml";
import { createTwoFilesPatch } from "diff";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { EnvironmentConfig } from "@/lib/config";
import type { Change } from "@/lib/drift/types";
import { ApiError } from "@/lib/api/errors";
import { dataDir } from "@/lib/env";
import { environmentConfigOf } from "@/lib/pauses/pauses";
import { findObjectSource, mirrorPathFor, type ObjectSource } from "@/lib/git";
import { adoptChanges, documentPatch, manifestFromLive, mayHoldSecret, removeDocument, spliceDocument, type DocumentEdit } from "./adopt-yaml";
import type { AdoptFile, AdoptPatch } from "@/lib/api/contract/claims";

export type FindSource = (
  mirrorPath: string,
  sha: string,
  sourcePath: string,
  key: { apiVersion: string; kind: string; namespace?: string; name: string },
) => Promise<ObjectSource | null>;

export interface AdoptDeps {
  findSource?: FindSource;
  mirrorsDir?: string;
}

export type { AdoptFile, AdoptPatch } from "@/lib/api/contract/claims";

function changesOf(json: unknown): Change[] {
  return Array.isArray(json) ? (json as Change[]) : [];
}

function bodyOf(json: unknown): Record<string, unknown> | null {
  return json && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9.-]+/g, "-").replace(/^-+|-+$/g, "") || "object";
}

interface FileEdit {
  path: string;
  before: string;
  after: string;
  change: AdoptFile["change"];
  objects: string[];
  /** The edited documents, by their place in `before` (Git files only). */
  documents?: DocumentEdit[];
}

/** Where an application's objects live in Git: its first source's repository and path, else the environment's. */
export function gitLocationOf(sources: unknown, env: EnvironmentConfig, environmentRepository: string | null): { repositoryName: string | null; sourcePath: string } {
  const first = Array.isArray(sources) ? (sources[0] as { repository?: unknown; path?: unknown } | undefined) : undefined;
  if (first && typeof first.repository === "string" && first.repository) {
    return { repositoryName: first.repository, sourcePath: typeof first.path === "string" ? first.path : "." };
  }
  return { repositoryName: environmentRepository, sourcePath: env.source?.path ?? "." };
}

export async function buildAdoptPatch(db: PrismaClient, claimId: string, deps: AdoptDeps = {}): Promise<AdoptPatch> {
  const claim = await db.divergenceClaim.findUnique({
    where: { id: claimId },
    include: { items: { include: { driftItem: { include: { environment: { include: { repository: true } }, application: { select: { sources: true } } } } } } },
  });
  if (!claim) throw new ApiError("not_found", "claim not found");
  const findSource = deps.findSource ?? findObjectSource;
  const mirrorsDir = deps.mirrorsDir ?? path.join(dataDir(), "mirrors");
  const notes: string[] = [];
  if (claim.returnPath !== "adopt") notes.push("This claim's return path is revert; the patch shows what adopting instead would change.");
  const edits = new Map<string, FileEdit>();
  let repository: string | null = null;
  let revision: string | null = null;

  for (const { driftItem: item } of claim.items) {
    const env = item.environment;
    // The drifted object's application says where its Git is (a discovered one has its own repository and path);
    // rows from before applications fall back to the environment's source.
    const { repositoryName, sourcePath } = gitLocationOf(item.application?.sources, environmentConfigOf(env.spec), env.repository?.name ?? null);
    repository ??= repositoryName;
    const [desired, live] = await Promise.all([
      db.desiredObject.findUnique({ where: { environmentId_key: { environmentId: env.id, key: item.key } } }),
      db.liveObject.findUnique({ where: { environmentId_key: { environmentId: env.id, key: item.key } } }),
    ]);
    const blobs = await db.objectBlob.findMany({ where: { hash: { in: [desired?.blobHash, live?.blobHash].filter((h): h is string => !!h) } } });
    const desiredBody = bodyOf(blobs.find((b) => b.hash === desired?.blobHash)?.body);
    const liveBody = bodyOf(blobs.find((b) => b.hash === live?.blobHash)?.body);
    const label = `${item.kind}/${item.namespace ? item.namespace + "/" : ""}${item.name}`;

    if (item.kind === "Secret") {
      notes.push(`${label}: Secrets are not adopted; Driftwatch never stores their values. Update it in Git (or your secret store) by hand.`);
      continue;
    }

    if (item.type === "Extra") {
      if (!liveBody) {
        notes.push(`${label}: the live object is no longer stored; nothing to adopt.`);
        continue;
      }
      const file = path.posix.join(sourcePath.replace(/^\.\/?/, "") || ".", `${slug(item.kind)}-${item.namespace ? slug(item.namespace) + "-" : ""}${slug(item.name)}.yaml`).replace(/^\.\//, "");
      edits.set(file, { path: file, before: "", after: manifestFromLive(liveBody), change: "added", objects: [label] });
      notes.push(`${label}: only live has it; the patch adds it as ${file}. Add the file to your kustomization if the path uses one.`);
      continue;
    }

    let source: ObjectSource | null = null;
    if (desired && repositoryName) {
      revision ??= desired.revisionSha;
      try {
        source = await findSource(mirrorPathFor({ name: repositoryName }, mirrorsDir), desired.revisionSha, sourcePath, {
          apiVersion: item.apiVersion,
          kind: item.kind,
          namespace: item.namespace || undefined,
          name: item.name,
        });
      } catch (e) {
        notes.push(`${label}: could not read the Git file (${e instanceof Error ? e.message : String(e)}).`);
      }
    }

    if (source) {
      const existing = edits.get(source.file);
      const current = existing?.after ?? source.text;
      if (existing && existing.after !== source.text) {
        notes.push(`${label}: ${source.file} also holds another claimed object; its offsets were taken from the original file.`);
      }
      if (mayHoldSecret(source.text.slice(source.range[0], source.range[1]))) {
        // A List (or a hand-made document) holding a Secret next to this object: no patch can show one without the other.
        notes.push(`${label}: ${source.file} holds it in one document with a Secret; Driftwatch leaves that document to you, so that no Secret text lands in a patch.`);
        continue;
      }
      if (item.type === "Missing") {
        edits.set(source.file, {
          path: source.file,
          before: existing?.before ?? source.text,
          after: removeDocument(current, source.range),
          change: "removed-document",
          objects: [...(existing?.objects ?? []), label],
          documents: [...(existing?.documents ?? []), { range: source.range, after: "" }],
        });
        continue;
      }
      const segment = current.slice(source.range[0], source.range[1]);
      const adopted = adoptChanges(segment, changesOf(item.changes));
      notes.push(...adopted.notes.map((n) => `${label}: ${n}`));
      if (adopted.applied === 0) continue;
      // The document as Git has it, for a patch that shows this document alone.
      const own = existing ? adoptChanges(source.text.slice(source.range[0], source.range[1]), changesOf(item.changes)).text : adopted.text;
      edits.set(source.file, {
        path: source.file,
        before: existing?.before ?? source.text,
        after: spliceDocument(current, source.range, adopted.text),
        change: existing?.change ?? "modified",
        objects: [...(existing?.objects ?? []), label],
        documents: [...(existing?.documents ?? []), { range: source.range, after: own }],
      });
      continue;
    }

    // No Git file found (rendered by kustomize from outside the path, mirror not on this machine, …):
    // show the whole object, desired against live, so the owner can carry the change over by hand.
    const file = desired?.sourcePath || `${item.kind}-${item.name}.yaml`;
    const before = desiredBody ? YAML.stringify(desiredBody, { lineWidth: 0 }) : "";
    const after = item.type === "Missing" || !liveBody ? "" : manifestFromLive(liveBody);
    edits.set(`approx:${item.key}`, { path: file, before, after, change: "approximate", objects: [label] });
    notes.push(`${label}: the defining file was not found in the repository; the patch shows the whole object (desired → live) for ${file}, to carry over by hand.`);
  }

  const parts: string[] = [];
  for (const e of edits.values()) {
    if (e.before === e.after) continue;
    if (e.documents && mayHoldSecret(e.before)) {
      // The file also holds a Secret: the usual three lines of context could be its text.
      parts.push(documentPatch(e.path, e.before, e.documents));
      continue;
    }
    const oldName = e.change === "added" ? "/dev/null" : `a/${e.path}`;
    const newName = `b/${e.path}`;
    parts.push(createTwoFilesPatch(oldName, newName, e.before, e.after, undefined, undefined, { context: 3 }).replace(/^=+\n/, ""));
  }
  return {
    claimId,
    repository,
    revision,
    files: [...edits.values()].map((e) => ({ path: e.path, change: e.change, objects: e.objects })),
    patch: parts.join(""),
    notes,
  };
}
