-- Reviews (options.review) add the status awaiting_review, which the
-- status CHECK of jobs refuses. SQLite cannot change a CHECK, so the table
-- is rebuilt as SQLite's "making other kinds of table schema changes"
-- describes: foreign keys off on this one connection (this migration is
-- not a .tx one, so that the PRAGMA can run outside a transaction; bun
-- runs all of it on one connection), then in one transaction a new table,
-- the rows copied, the old table dropped (with foreign keys off, without
-- deleting the events and file links that reference it) and the new one
-- renamed in its place, its indexes made again.
PRAGMA foreign_keys = OFF;
--bun:split
BEGIN IMMEDIATE;
--bun:split
CREATE TABLE jobs_new (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name          TEXT NOT NULL DEFAULT '',
    mode          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'awaiting_review', 'succeeded', 'failed', 'canceled')),
    source_type   TEXT NOT NULL,
    files         TEXT NOT NULL,
    schema_id     TEXT NOT NULL DEFAULT '',
    schema        TEXT,
    options       TEXT NOT NULL,
    rows_read     INTEGER NOT NULL DEFAULT 0,
    rows_valid    INTEGER NOT NULL DEFAULT 0,
    rows_rejected INTEGER NOT NULL DEFAULT 0,
    bytes_read    INTEGER NOT NULL DEFAULT 0,
    bytes_total   INTEGER NOT NULL DEFAULT 0,
    mapping       TEXT,
    result        TEXT,
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    attempts      INTEGER NOT NULL DEFAULT 0,
    lease_until   TIMESTAMP,
    created_at    TIMESTAMP NOT NULL,
    started_at    TIMESTAMP,
    finished_at   TIMESTAMP,
    purged_at     TIMESTAMP,
    dispatched    INTEGER NOT NULL DEFAULT 1,
    review        TEXT,
    review_since  TIMESTAMP,
    reviewed_at   TIMESTAMP,
    rerun_of      TEXT NOT NULL DEFAULT ''
);
--bun:split
INSERT INTO jobs_new (id, org_id, name, mode, status, source_type, files, schema_id, schema, options, rows_read, rows_valid, rows_rejected,
    bytes_read, bytes_total, mapping, result, error_code, error_message, attempts, lease_until, created_at, started_at, finished_at, purged_at, dispatched)
SELECT id, org_id, name, mode, status, source_type, files, schema_id, schema, options, rows_read, rows_valid, rows_rejected,
    bytes_read, bytes_total, mapping, result, error_code, error_message, attempts, lease_until, created_at, started_at, finished_at, purged_at, dispatched
FROM jobs;
--bun:split
DROP TABLE jobs;
--bun:split
ALTER TABLE jobs_new RENAME TO jobs;
--bun:split
CREATE INDEX jobs_org_id_idx ON jobs (org_id, id);
--bun:split
CREATE INDEX jobs_org_status_idx ON jobs (org_id, status, id);
--bun:split
CREATE INDEX jobs_running_lease_idx ON jobs (lease_until) WHERE status = 'running';
--bun:split
CREATE INDEX jobs_waiting_idx ON jobs (org_id, created_at, id) WHERE status = 'queued' AND dispatched = 0;
--bun:split
CREATE INDEX jobs_org_finished_idx ON jobs (org_id, finished_at);
--bun:split
CREATE INDEX jobs_review_since_idx ON jobs (review_since) WHERE status = 'awaiting_review';
--bun:split
COMMIT;
--bun:split
PRAGMA foreign_keys = ON;
