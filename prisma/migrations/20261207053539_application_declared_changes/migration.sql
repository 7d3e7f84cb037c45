-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "declaredChanges" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Rows of the previous release start with none: each environment's next good run
-- records them (until then the incident report credits such a commit to the parent only).
