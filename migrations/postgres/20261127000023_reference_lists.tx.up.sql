-- Reference lists: a schema's inList constraints check values against
-- them. The values are a blob (org/<org>/lists/<id>/values), sorted.
CREATE TABLE reference_lists (
    id          text PRIMARY KEY,
    org_id      text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name        text NOT NULL,
    value_count bigint NOT NULL,
    created_at  timestamptz NOT NULL
);
--bun:split
CREATE INDEX reference_lists_org_id_idx ON reference_lists (org_id, id);
