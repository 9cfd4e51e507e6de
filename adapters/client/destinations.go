package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Destination is where a job's rows are delivered: an S3 bucket, a
// PostgreSQL table or an HTTP endpoint (API.md §12, docs/destinations.md).
// Config holds the settings that may be shown, never a secret.
type Destination struct {
	ID      string            `json:"id"`
	Name    string            `json:"name"`
	Type    string            `json:"type"` // s3, postgres or http
	Config  map[string]string `json:"config"`
	Created time.Time         `json:"created_at"`
	Updated time.Time         `json:"updated_at"`
	// SigningSecret is an http destination's secret the service made,
	// only in the answer to its creation.
	SigningSecret string          `json:"signing_secret,omitempty"`
	Raw           json.RawMessage `json:"-"`
}

func (d *Destination) keep(raw []byte) { d.Raw = raw }

// DestinationParams is a new destination. Config's keys depend on the
// type: postgres url and table; s3 bucket, prefix, region, endpoint,
// format, access_key_id and secret_access_key; http url and signing_secret.
type DestinationParams struct {
	Name   string            `json:"name"`
	Type   string            `json:"type"`
	Config map[string]string `json:"config"`
}

// DestinationPatch renames a destination or replaces its settings (all of
// them, secrets included); a nil field stays.
type DestinationPatch struct {
	Name   *string           `json:"name,omitempty"`
	Config map[string]string `json:"config,omitempty"`
}

// DestinationTest is the outcome of a test of a destination.
type DestinationTest struct {
	OK    bool    `json:"ok"`
	Error *string `json:"error"`
}

// RowsDelivery is a job's delivery to one destination.
type RowsDelivery struct {
	ID            string          `json:"id"`
	JobID         string          `json:"job_id"`
	DestinationID string          `json:"destination_id"`
	Status        string          `json:"status"` // pending, delivering, delivered or failed
	Attempts      int             `json:"attempts"`
	Rows          int64           `json:"rows"`
	Bytes         int64           `json:"bytes"`
	LastError     *string         `json:"last_error"`
	NextAttemptAt *time.Time      `json:"next_attempt_at"`
	Created       time.Time       `json:"created_at"`
	Updated       time.Time       `json:"updated_at"`
	DeliveredAt   *time.Time      `json:"delivered_at"`
	Raw           json.RawMessage `json:"-"`
}

func (d *RowsDelivery) keep(raw []byte) { d.Raw = raw }

func destinationPath(id string) string { return "/v1/destinations/" + esc(id) }

// CreateDestination adds a destination.
func (c *Client) CreateDestination(ctx context.Context, p DestinationParams) (*Destination, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var d Destination
	return &d, c.call(ctx, request{method: http.MethodPost, path: "/v1/destinations", body: b, contentType: "application/json"}, &d)
}

// Destinations iterates over the organization's destinations, newest first.
func (c *Client) Destinations(ctx context.Context, p ListParams) iter.Seq2[*Destination, error] {
	return pages[*Destination](ctx, c, "/v1/destinations", url.Values{}, p.PageSize)
}

// GetDestination reads a destination (never its secrets).
func (c *Client) GetDestination(ctx context.Context, id string) (*Destination, error) {
	var d Destination
	return &d, c.call(ctx, request{method: http.MethodGet, path: destinationPath(id)}, &d)
}

// UpdateDestination renames a destination or replaces its settings.
func (c *Client) UpdateDestination(ctx context.Context, id string, p DestinationPatch) (*Destination, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var d Destination
	return &d, c.call(ctx, request{method: http.MethodPatch, path: destinationPath(id), body: b, contentType: "application/json", replayable: true}, &d)
}

// DeleteDestination deletes a destination and its deliveries.
func (c *Client) DeleteDestination(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: destinationPath(id)}, nil)
}

// TestDestination connects to a destination and proves it takes writes.
func (c *Client) TestDestination(ctx context.Context, id string) (*DestinationTest, error) {
	var out DestinationTest
	return &out, c.call(ctx, request{method: http.MethodPost, path: destinationPath(id) + "/test"}, &out)
}

// DestinationDeliveries iterates over a destination's deliveries, newest first.
func (c *Client) DestinationDeliveries(ctx context.Context, id string, p ListParams) iter.Seq2[*RowsDelivery, error] {
	return pages[*RowsDelivery](ctx, c, destinationPath(id)+"/deliveries", url.Values{}, p.PageSize)
}

// JobDeliveries returns where a job's rows went, or are going.
func (c *Client) JobDeliveries(ctx context.Context, jobID string) ([]*RowsDelivery, error) {
	var out []*RowsDelivery
	for d, err := range pages[*RowsDelivery](ctx, c, "/v1/jobs/"+esc(jobID)+"/deliveries", url.Values{}, 0) {
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// RetryJobDelivery delivers a job's rows to a destination again, in a new
// round of attempts; delivery_pending while one is under way.
func (c *Client) RetryJobDelivery(ctx context.Context, jobID, destinationID string) (*RowsDelivery, error) {
	var d RowsDelivery
	return &d, c.call(ctx, request{method: http.MethodPost, path: "/v1/jobs/" + esc(jobID) + "/deliveries/" + esc(destinationID) + "/retry"}, &d)
}
