-- Destinations of an organization: where its jobs' rows are pushed.
-- config holds the settings that may be shown; sealed holds the secrets,
-- sealed (AES-256-GCM) with the organization and id as associated data.
CREATE TABLE destinations (
    id         text PRIMARY KEY,
    org_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name       text NOT NULL,
    type       text NOT NULL,
    config     text NOT NULL,
    sealed     BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX destinations_org_id_idx ON destinations (org_id, id);
--bun:split
-- One delivery per job and destination, written in the transaction that
-- made the job succeed (or submitted its import session); the queue
-- carries each attempt.
CREATE TABLE destination_deliveries (
    id             text PRIMARY KEY,
    org_id         text NOT NULL,
    job_id         text NOT NULL,
    destination_id text NOT NULL REFERENCES destinations (id) ON DELETE CASCADE,
    status         text NOT NULL,
    attempts       integer NOT NULL,
    rows_written   INTEGER NOT NULL,
    bytes_written  INTEGER NOT NULL,
    last_error     text NOT NULL,
    next_at        TIMESTAMP,
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL,
    delivered_at   TIMESTAMP,
    UNIQUE (job_id, destination_id)
);
--bun:split
CREATE INDEX destination_deliveries_destination_idx ON destination_deliveries (destination_id, id);
--bun:split
CREATE INDEX destination_deliveries_due_idx ON destination_deliveries (next_at) WHERE status IN ('pending', 'delivering');
