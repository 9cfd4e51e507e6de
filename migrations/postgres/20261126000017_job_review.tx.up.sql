-- Reviews (options.review): the status awaiting_review, the review's
-- document and times, and the job a rerun reruns.
ALTER TABLE jobs DROP CONSTRAINT jobs_status_check;
--bun:split
ALTER TABLE jobs ADD CONSTRAINT jobs_status_check CHECK (status IN ('queued', 'running', 'awaiting_review', 'succeeded', 'failed', 'canceled'));
--bun:split
ALTER TABLE jobs
    ADD COLUMN review       text,
    ADD COLUMN review_since timestamptz,
    ADD COLUMN reviewed_at  timestamptz,
    ADD COLUMN rerun_of     text NOT NULL DEFAULT '';
--bun:split
CREATE INDEX jobs_review_since_idx ON jobs (review_since) WHERE status = 'awaiting_review';
