-- AlterTable
ALTER TABLE "Application" ADD COLUMN     "declaringFiles" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Rows of the previous release start with none: each environment's next good run
-- records them (until then a parent's commit to a child's declaration counts as the parent's too).
