-- The audit log says who acted in full (a staff member impersonating, an
-- import session's end user) and which request did it, and can be read
-- by filters. Its rows are only appended: the table refuses UPDATE, and
-- only retention deletes.
ALTER TABLE audit_log ADD COLUMN actor_import_session_id text NOT NULL DEFAULT '';
--bun:split
ALTER TABLE audit_log ADD COLUMN impersonating boolean NOT NULL DEFAULT false;
--bun:split
ALTER TABLE audit_log ADD COLUMN request_id text NOT NULL DEFAULT '';
--bun:split
CREATE INDEX audit_log_org_action_idx ON audit_log (org_id, action, id);
--bun:split
CREATE INDEX audit_log_at_idx ON audit_log (at);
--bun:split
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: entries are never changed';
END
$$;
--bun:split
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
