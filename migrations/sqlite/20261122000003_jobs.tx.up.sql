CREATE TABLE schemas (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    schema     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX schemas_org_id_idx ON schemas (org_id, id);
--bun:split
CREATE TABLE jobs (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name          TEXT NOT NULL DEFAULT '',
    mode          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
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
    purged_at     TIMESTAMP
);
--bun:split
CREATE INDEX jobs_org_id_idx ON jobs (org_id, id);
--bun:split
CREATE INDEX jobs_org_status_idx ON jobs (org_id, status, id);
--bun:split
CREATE INDEX jobs_running_lease_idx ON jobs (lease_until) WHERE status = 'running';
--bun:split
CREATE TABLE job_events (
    job_id     TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, seq)
);
--bun:split
CREATE TABLE idempotency_keys (
    org_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL,
    location     TEXT NOT NULL DEFAULT '',
    body         TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, key)
);
--bun:split
CREATE TABLE learned_mappings (
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    schema_id  TEXT NOT NULL,
    header     TEXT NOT NULL,
    field      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, schema_id, header)
);
