-- The circuit breaker of an endpoint: failed attempts in a row, when the
-- next attempt may go, and whether its deliveries wait to be resumed.
ALTER TABLE webhook_endpoints ADD COLUMN failures integer NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE webhook_endpoints ADD COLUMN retry_at timestamptz;
--bun:split
ALTER TABLE webhook_endpoints ADD COLUMN paused boolean NOT NULL DEFAULT false;
--bun:split
ALTER TABLE webhook_endpoints ADD COLUMN paused_reason text NOT NULL DEFAULT '';
