CREATE TABLE schemas (
    id         text PRIMARY KEY,
    org_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name       text NOT NULL,
    schema     text NOT NULL,
    created_at timestamptz NOT NULL
);
--bun:split
CREATE INDEX schemas_org_id_idx ON schemas (org_id, id);
--bun:split
CREATE TABLE jobs (
    id            text PRIMARY KEY,
    org_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name          text NOT NULL DEFAULT '',
    mode          text NOT NULL,
    status        text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
    source_type   text NOT NULL,
    files         text NOT NULL,
    schema_id     text NOT NULL DEFAULT '',
    schema        text,
    options       text NOT NULL,
    rows_read     bigint NOT NULL DEFAULT 0,
    rows_valid    bigint NOT NULL DEFAULT 0,
    rows_rejected bigint NOT NULL DEFAULT 0,
    bytes_read    bigint NOT NULL DEFAULT 0,
    bytes_total   bigint NOT NULL DEFAULT 0,
    mapping       text,
    result        text,
    error_code    text NOT NULL DEFAULT '',
    error_message text NOT NULL DEFAULT '',
    attempts      integer NOT NULL DEFAULT 0,
    lease_until   timestamptz,
    created_at    timestamptz NOT NULL,
    started_at    timestamptz,
    finished_at   timestamptz,
    purged_at     timestamptz
);
--bun:split
CREATE INDEX jobs_org_id_idx ON jobs (org_id, id);
--bun:split
CREATE INDEX jobs_org_status_idx ON jobs (org_id, status, id);
--bun:split
CREATE INDEX jobs_running_lease_idx ON jobs (lease_until) WHERE status = 'running';
--bun:split
CREATE TABLE job_events (
    job_id     text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    kind       text NOT NULL,
    data       text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (job_id, seq)
);
--bun:split
CREATE TABLE idempotency_keys (
    org_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    key          text NOT NULL,
    request_hash text NOT NULL,
    status       integer NOT NULL,
    location     text NOT NULL DEFAULT '',
    body         text NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (org_id, key)
);
--bun:split
CREATE TABLE learned_mappings (
    org_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    schema_id  text NOT NULL,
    header     text NOT NULL,
    field      text NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, schema_id, header)
);
