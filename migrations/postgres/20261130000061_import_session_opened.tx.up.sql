-- When the importer first read its session (the end user opened it), for
-- the import sessions' funnel; the funnel reads sessions by creation.
ALTER TABLE import_sessions ADD COLUMN opened_at TIMESTAMP;
--bun:split
CREATE INDEX import_sessions_created_idx ON import_sessions (org_id, created_at);
