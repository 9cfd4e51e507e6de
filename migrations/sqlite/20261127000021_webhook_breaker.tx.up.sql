-- The circuit breaker of an endpoint: failed attempts in a row, when the
-- next attempt may go, and whether its deliveries wait to be resumed.
ALTER TABLE webhook_endpoints ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE webhook_endpoints ADD COLUMN retry_at TIMESTAMP;
--bun:split
ALTER TABLE webhook_endpoints ADD COLUMN paused BOOLEAN NOT NULL DEFAULT FALSE;
--bun:split
ALTER TABLE webhook_endpoints ADD COLUMN paused_reason text NOT NULL DEFAULT '';
