-- A queued job is dispatched once it holds one of its organization's
-- running slots and has a queue entry. Jobs queued before this column
-- already have their entry, hence the default.
ALTER TABLE jobs ADD COLUMN dispatched BOOLEAN NOT NULL DEFAULT TRUE;
--bun:split
CREATE INDEX jobs_waiting_idx ON jobs (org_id, created_at, id) WHERE status = 'queued' AND NOT dispatched;
