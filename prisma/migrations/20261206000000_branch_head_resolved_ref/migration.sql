-- AlterTable
-- The ref a followed tag range or default branch resolved to on the last run
-- (refs/tags/v1.4.0, refs/heads/main); null for a branch followed by name.
ALTER TABLE "BranchHead" ADD COLUMN     "resolvedRef" TEXT;
