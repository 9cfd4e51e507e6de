-- Validation hooks of an organization: services of its own that check
-- and correct a job's rows while it runs. The secrets are sealed with the
-- operator's key (the associated data is the organization and the hook).
CREATE TABLE hooks (
    id              text PRIMARY KEY,
    org_id          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    url             text NOT NULL,
    timeout_ms      INTEGER NOT NULL,
    concurrency     INTEGER NOT NULL,
    enabled         BOOLEAN NOT NULL,
    secret          BLOB NOT NULL,
    previous_secret BLOB,
    previous_until  TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX hooks_org_name_idx ON hooks (org_id, name);
--bun:split
CREATE INDEX hooks_org_id_idx ON hooks (org_id, id);
