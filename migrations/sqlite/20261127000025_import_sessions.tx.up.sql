-- Import sessions: a narrow, short-lived credential for a customer's end
-- users (its secret kept only as a SHA-256), and the session a job was
-- created in, with the session's metadata copied onto the job.
CREATE TABLE import_sessions (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    hash            BLOB NOT NULL UNIQUE,
    schema_id       TEXT NOT NULL DEFAULT '',
    schema          TEXT,
    options         TEXT NOT NULL,
    allowed_origins TEXT NOT NULL,
    metadata        TEXT NOT NULL,
    max_jobs        INTEGER NOT NULL,
    locale          TEXT NOT NULL,
    theme           TEXT NOT NULL,
    created_by      TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMP NOT NULL,
    expires_at      TIMESTAMP NOT NULL,
    revoked_at      TIMESTAMP,
    submitted_at    TIMESTAMP
);
--bun:split
CREATE INDEX import_sessions_org_id_idx ON import_sessions (org_id, id);
--bun:split
ALTER TABLE jobs ADD COLUMN import_session_id TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE jobs ADD COLUMN metadata TEXT;
--bun:split
CREATE INDEX jobs_import_session_idx ON jobs (import_session_id, id) WHERE import_session_id <> '';
