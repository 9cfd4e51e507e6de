-- Entitlements become grants with a history: who granted a product and how
-- (admin, license, plan), when, until when (ends_at, NULL for no end), and
-- when and by whom the grant was revoked or replaced. At most one grant of
-- a product per organization is current (not revoked). Every existing row
-- was made by the operator's tooling (create-org, grant, the first start's
-- seed): it becomes a current admin grant without end, granted at its
-- creation.
CREATE TABLE entitlement_grants (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    product    TEXT NOT NULL CHECK (product IN ('normalize', 'connect')),
    source     TEXT NOT NULL CHECK (source IN ('admin', 'license', 'plan')),
    granted_by TEXT NOT NULL DEFAULT '',
    granted_at TIMESTAMP NOT NULL,
    ends_at    TIMESTAMP,
    revoked_at TIMESTAMP,
    revoked_by TEXT NOT NULL DEFAULT ''
);
--bun:split
INSERT INTO entitlement_grants (id, org_id, product, source, granted_by, granted_at)
SELECT 'ent_' || lower(hex(randomblob(13))), org_id, product, 'admin', 'tabnorm admin', created_at FROM entitlements;
--bun:split
DROP TABLE entitlements;
--bun:split
ALTER TABLE entitlement_grants RENAME TO entitlements;
--bun:split
CREATE UNIQUE INDEX entitlements_current_idx ON entitlements (org_id, product) WHERE revoked_at IS NULL;
--bun:split
CREATE INDEX entitlements_org_idx ON entitlements (org_id, granted_at);
