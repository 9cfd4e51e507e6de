-- The destinations a saved schema's jobs are delivered to when their
-- options name none (a JSON array of destination ids).
ALTER TABLE schemas ADD COLUMN destination_ids text NOT NULL DEFAULT '[]';
