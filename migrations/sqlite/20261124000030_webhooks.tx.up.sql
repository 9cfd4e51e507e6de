-- Webhook endpoints of an organization. The secrets are kept in the clear:
-- signing needs them, as a password check would not.
CREATE TABLE webhook_endpoints (
    id              text PRIMARY KEY,
    org_id          text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    url             text NOT NULL,
    description     text NOT NULL,
    events          text NOT NULL,
    enabled         BOOLEAN NOT NULL,
    disabled_reason text NOT NULL,
    secret          text NOT NULL,
    previous_secret text NOT NULL,
    previous_until  TIMESTAMP,
    failing_since   TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX webhook_endpoints_org_id_idx ON webhook_endpoints (org_id, id);
--bun:split
-- The outbox: one row per event and endpoint, written in the transaction
-- that changed the job; the queue carries each attempt.
CREATE TABLE webhook_deliveries (
    id               text PRIMARY KEY,
    endpoint_id      text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    org_id           text NOT NULL,
    event_type       text NOT NULL,
    payload          text NOT NULL,
    status           text NOT NULL,
    attempts         integer NOT NULL,
    next_at          TIMESTAMP,
    created_at       TIMESTAMP NOT NULL,
    last_at          TIMESTAMP,
    last_status_code integer,
    last_latency_ms  INTEGER,
    last_error       text,
    last_response    text
);
--bun:split
CREATE INDEX webhook_deliveries_endpoint_id_idx ON webhook_deliveries (endpoint_id, id);
--bun:split
-- The sweep looks for pending deliveries whose attempt is overdue.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_at) WHERE status = 'pending';
