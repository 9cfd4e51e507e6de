CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    org_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name         text NOT NULL,
    hash         bytea NOT NULL UNIQUE,
    last4        text NOT NULL,
    created_by   text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz
);
--bun:split
CREATE INDEX api_keys_org_id_idx ON api_keys (org_id, id);
--bun:split
CREATE TABLE sessions (
    hash             bytea PRIMARY KEY,
    user_id          text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    org_id           text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_at       timestamptz NOT NULL,
    last_seen_at     timestamptz NOT NULL,
    ip               text NOT NULL DEFAULT '',
    user_agent       text NOT NULL DEFAULT '',
    impersonated_org text REFERENCES organizations (id) ON DELETE SET NULL,
    impersonated_at  timestamptz
);
--bun:split
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
--bun:split
CREATE TABLE audit_log (
    id            text PRIMARY KEY,
    org_id        text NOT NULL,
    actor_user_id text NOT NULL DEFAULT '',
    actor_key_id  text NOT NULL DEFAULT '',
    action        text NOT NULL,
    target_id     text NOT NULL DEFAULT '',
    ip            text NOT NULL DEFAULT '',
    user_agent    text NOT NULL DEFAULT '',
    at            timestamptz NOT NULL
);
--bun:split
CREATE INDEX audit_log_org_id_idx ON audit_log (org_id, id);
