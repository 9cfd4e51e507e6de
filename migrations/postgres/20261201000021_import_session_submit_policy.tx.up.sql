-- An import session's submit policy (docs/API.md 4.7): a JSON object
-- {"invalid_rows":"drop"|"block","min_valid_rows":N}, {} for the default
-- (drop, 0).
ALTER TABLE import_sessions ADD COLUMN submit_policy text NOT NULL DEFAULT '{}';
