-- A person's values for single cells of a job's file, read by its runs
-- instead of the file's (docs/review.md): one a cell, the last wins. A
-- rerun holds a copy of its original's. value NULL clears the cell.
CREATE TABLE job_edits (
    job_id      TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    source_file TEXT NOT NULL DEFAULT '',
    row_number  INTEGER NOT NULL CHECK (row_number > 0),
    field       TEXT NOT NULL,
    value       TEXT,
    updated_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (job_id, source_file, row_number, field)
);
