CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    org_id       TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    hash         BLOB NOT NULL UNIQUE,
    last4        TEXT NOT NULL,
    created_by   TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP
);
--bun:split
CREATE INDEX api_keys_org_id_idx ON api_keys (org_id, id);
--bun:split
CREATE TABLE sessions (
    hash             BLOB PRIMARY KEY,
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    org_id           TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_at       TIMESTAMP NOT NULL,
    last_seen_at     TIMESTAMP NOT NULL,
    ip               TEXT NOT NULL DEFAULT '',
    user_agent       TEXT NOT NULL DEFAULT '',
    impersonated_org TEXT REFERENCES organizations (id) ON DELETE SET NULL,
    impersonated_at  TIMESTAMP
);
--bun:split
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
--bun:split
CREATE TABLE audit_log (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL,
    actor_user_id TEXT NOT NULL DEFAULT '',
    actor_key_id  TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,
    target_id     TEXT NOT NULL DEFAULT '',
    ip            TEXT NOT NULL DEFAULT '',
    user_agent    TEXT NOT NULL DEFAULT '',
    at            TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX audit_log_org_id_idx ON audit_log (org_id, id);
