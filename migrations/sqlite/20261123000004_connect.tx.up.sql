CREATE TABLE files (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    filename   TEXT NOT NULL,
    format     TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX files_org_id_idx ON files (org_id, id);
--bun:split
-- Which library files a connect job reads, in order. A file cannot be
-- deleted while a job linked to it is queued or running.
CREATE TABLE job_files (
    job_id   TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    file_id  TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    PRIMARY KEY (job_id, position)
);
--bun:split
CREATE INDEX job_files_file_id_idx ON job_files (file_id);
