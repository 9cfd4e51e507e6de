-- A person's values for single cells of a job's file, read by its runs
-- instead of the file's (docs/review.md): one a cell, the last wins. A
-- rerun holds a copy of its original's. value NULL clears the cell.
CREATE TABLE job_edits (
    job_id      text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    org_id      text NOT NULL,
    source_file text NOT NULL DEFAULT '',
    row_number  bigint NOT NULL CHECK (row_number > 0),
    field       text NOT NULL,
    value       text,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (job_id, source_file, row_number, field)
);
