-- A finished job's history of changes (docs/review.md): each edit request
-- and each replacement is one step, which undo reverts and redo applies
-- again. An edits step holds its cells' edits before and after it; a
-- replacement step holds the replacement, which runs apply while it is
-- not undone. A new step discards the undone ones.
CREATE TABLE job_history (
    job_id     text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    org_id     text NOT NULL,
    step       bigint NOT NULL CHECK (step > 0),
    kind       text NOT NULL,
    id         text NOT NULL DEFAULT '',
    cells      bigint NOT NULL DEFAULT 0,
    summary    text NOT NULL DEFAULT '',
    undone     boolean NOT NULL DEFAULT false,
    payload    text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (job_id, step)
);

-- The step an edit was made in orders it among the job's replacements: a
-- replacement changes the cells whose edit is older than it (0: made
-- before steps were kept).
ALTER TABLE job_edits ADD COLUMN step bigint NOT NULL DEFAULT 0;
