-- A key holds scopes (space-separated names, domain/apikey) and may
-- expire. Keys made before scopes existed could do everything their
-- organization could: they keep it, as the admin scope.
ALTER TABLE api_keys ADD COLUMN scopes text NOT NULL DEFAULT 'admin';
--bun:split
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
--bun:split
ALTER TABLE api_keys ADD COLUMN last_used_ip text NOT NULL DEFAULT '';
