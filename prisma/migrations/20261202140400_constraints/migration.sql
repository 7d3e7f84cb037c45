-- Invariants Prisma's schema language cannot express. Written by hand; keep
-- them when a later migration recreates one of these tables.

-- At most one open drift item per object of an environment.
CREATE UNIQUE INDEX "DriftItem_open_environmentId_key_key" ON "DriftItem"("environmentId", "key") WHERE "resolvedAt" IS NULL;

-- At most one queued and at most one running collection per environment: the
-- job queue relies on both (a refresh requested during a run queues exactly
-- one follow-up; no environment is ever collected twice at once).
CREATE UNIQUE INDEX "CollectionRun_queued_environmentId_key" ON "CollectionRun"("environmentId") WHERE "status" = 'queued';
CREATE UNIQUE INDEX "CollectionRun_running_environmentId_key" ON "CollectionRun"("environmentId") WHERE "status" = 'running';

-- At most one open alert per fingerprint.
CREATE UNIQUE INDEX "Alert_open_fingerprint_key" ON "Alert"("fingerprint") WHERE "resolvedAt" IS NULL;

-- At most one active pause per environment and controller object (NULL = the whole environment).
CREATE UNIQUE INDEX "Pause_active_environmentId_controllerRef_key" ON "Pause"("environmentId", COALESCE("controllerRef", '')) WHERE "endedAt" IS NULL;

-- The audit log is append-only: any UPDATE, DELETE or TRUNCATE of it fails.
CREATE FUNCTION "audit_event_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only: % on "AuditEvent" is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Record a new audit event instead of changing or removing one.';
END;
$$;

CREATE TRIGGER "AuditEvent_append_only"
BEFORE UPDATE OR DELETE OR TRUNCATE ON "AuditEvent"
FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
