-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "appliedBehind" BOOLEAN NOT NULL DEFAULT false;

-- The previous release compared revisions by equality; the next good run of each
-- environment recomputes this by ancestry.
UPDATE "Application" SET "appliedBehind" = ("approvedSha" IS NOT NULL AND "appliedSha" IS NOT NULL AND "approvedSha" <> "appliedSha");
