CREATE TABLE files (
    id         text PRIMARY KEY,
    org_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    filename   text NOT NULL,
    format     text NOT NULL,
    size_bytes bigint NOT NULL,
    sha256     text NOT NULL,
    created_at timestamptz NOT NULL
);
--bun:split
CREATE INDEX files_org_id_idx ON files (org_id, id);
--bun:split
-- Which library files a connect job reads, in order. A file cannot be
-- deleted while a job linked to it is queued or running.
CREATE TABLE job_files (
    job_id   text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    position integer NOT NULL,
    file_id  text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    PRIMARY KEY (job_id, position)
);
--bun:split
CREATE INDEX job_files_file_id_idx ON job_files (file_id);
