-- A finished job's history of changes (docs/review.md): each edit request
-- and each replacement is one step, which undo reverts and redo applies
-- again. An edits step holds its cells' edits before and after it; a
-- replacement step holds the replacement, which runs apply while it is
-- not undone. A new step discards the undone ones.
CREATE TABLE job_history (
    job_id     TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    org_id     TEXT NOT NULL,
    step       INTEGER NOT NULL CHECK (step > 0),
    kind       TEXT NOT NULL,
    id         TEXT NOT NULL DEFAULT '',
    cells      INTEGER NOT NULL DEFAULT 0,
    summary    TEXT NOT NULL DEFAULT '',
    undone     BOOLEAN NOT NULL DEFAULT 0,
    payload    TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, step)
);

-- The step an edit was made in orders it among the job's replacements: a
-- replacement changes the cells whose edit is older than it (0: made
-- before steps were kept).
ALTER TABLE job_edits ADD COLUMN step INTEGER NOT NULL DEFAULT 0;
