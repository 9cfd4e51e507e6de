-- The operator's monthly quotas of an organization; 0 is no limit.
CREATE TABLE org_quotas (
    org_id         TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    rows_per_month BIGINT NOT NULL DEFAULT 0,
    storage_bytes  BIGINT NOT NULL DEFAULT 0,
    updated_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX jobs_org_finished_idx ON jobs (org_id, finished_at);
