-- An organization's single sign-on (OpenID Connect) settings. sealed is
-- the client secret, sealed (AES-256-GCM) with the organization as
-- associated data.
CREATE TABLE sso_configs (
    org_id          text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    issuer          text NOT NULL,
    client_id       text NOT NULL,
    sealed          bytea NOT NULL,
    allowed_domains text NOT NULL,
    default_role    text NOT NULL,
    required        boolean NOT NULL,
    break_glass     text NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
--bun:split
-- Each e-mail domain signs in through one organization only.
CREATE TABLE sso_domains (
    domain text PRIMARY KEY,
    org_id text NOT NULL REFERENCES sso_configs (org_id) ON DELETE CASCADE
);
--bun:split
CREATE INDEX sso_domains_org_id_idx ON sso_domains (org_id);
--bun:split
-- Sign-ins in flight: taken (deleted) once by the provider's answer.
CREATE TABLE sso_flows (
    state_hash   text PRIMARY KEY,
    browser_hash text NOT NULL,
    org_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    nonce        text NOT NULL,
    verifier     text NOT NULL,
    redirect_uri text NOT NULL,
    created_at   timestamptz NOT NULL
);
