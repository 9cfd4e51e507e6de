CREATE TABLE organizations (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    created_at timestamptz NOT NULL
);
--bun:split
CREATE TABLE entitlements (
    org_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product    text NOT NULL CHECK (product IN ('normalize', 'connect')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, product)
);
--bun:split
CREATE TABLE users (
    id            text PRIMARY KEY,
    org_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email         text NOT NULL UNIQUE,
    name          text NOT NULL DEFAULT '',
    role          text NOT NULL CHECK (role IN ('admin', 'member')),
    is_staff      boolean NOT NULL DEFAULT false,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL
);
--bun:split
CREATE INDEX users_org_id_idx ON users (org_id);
