CREATE TABLE organizations (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE TABLE entitlements (
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product    TEXT NOT NULL CHECK (product IN ('normalize', 'connect')),
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, product)
);
--bun:split
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL DEFAULT '',
    role          TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    is_staff      BOOLEAN NOT NULL DEFAULT false,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX users_org_id_idx ON users (org_id);
