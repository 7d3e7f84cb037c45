-- Change notifications for in-process caches (lib/db/change-feed.ts): after
-- every statement that writes one of these tables, the table's name is sent
-- on the `driftwatch_changes` channel. Postgres delivers it when the
-- transaction commits, once per table and transaction however many statements
-- wrote it, and never for a rolled-back transaction.
-- Not here: "AuditEvent" (append-only, read uncached), "ObjectBlob"
-- (content-addressed, never changes in place), "WebhookDelivery".
CREATE FUNCTION "driftwatch_notify_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('driftwatch_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'Repository', 'Revision', 'BranchHead', 'Environment', 'CollectionRun',
    'DesiredObject', 'LiveObject', 'ObjectVersion', 'DriftItem', 'AppliedRevision',
    'Pause', 'DivergenceClaim', 'ClaimItem', 'Alert', 'User', 'Session'
  ] LOOP
    EXECUTE format(
      'CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION "driftwatch_notify_change"()',
      t || '_notify_change', t);
  END LOOP;
END;
$$;
