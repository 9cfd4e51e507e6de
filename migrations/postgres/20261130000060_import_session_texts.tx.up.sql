-- An import session may override the importer's sentences: a JSON object
-- of message key → text, {} for none.
ALTER TABLE import_sessions ADD COLUMN texts TEXT NOT NULL DEFAULT '{}';
