package destination_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/destination"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, typ    string
		cfg          map[string]any
		allowPrivate bool
		field        string // "" when valid
	}{
		{"postgres", destination.Postgres, map[string]any{"url": "postgres://u:pw@db.example.com/app", "table": "contacts"}, false, ""},
		{"table_that_is_sql", destination.Postgres, map[string]any{"url": "postgres://db.example.com/app", "table": "x; DROP TABLE users"}, false, "config.table"},
		{"quoted_table", destination.Postgres, map[string]any{"url": "postgres://db.example.com/app", "table": `"contacts"`}, false, "config.table"},
		{"table_from_a_digit", destination.Postgres, map[string]any{"url": "postgres://db.example.com/app", "table": "1x"}, false, "config.table"},
		{"private_postgres", destination.Postgres, map[string]any{"url": "postgres://10.0.0.5/app", "table": "t"}, false, "config.url"},
		{"loopback_postgres_allowed", destination.Postgres, map[string]any{"url": "postgres://127.0.0.1/app", "table": "t"}, true, ""},
		{"localhost_postgres", destination.Postgres, map[string]any{"url": "postgres://localhost/app", "table": "t"}, false, "config.url"},
		{"not_postgres_url", destination.Postgres, map[string]any{"url": "mysql://db.example.com/app", "table": "t"}, false, "config.url"},
		{"unknown_setting", destination.Postgres, map[string]any{"url": "postgres://db.example.com/app", "table": "t", "x": "y"}, false, "config.x"},
		{"not_a_string", destination.Postgres, map[string]any{"url": "postgres://db.example.com/app", "table": 3.0}, false, "config.table"},
		{"s3", destination.S3, map[string]any{"bucket": "acme-data", "prefix": "imports/"}, false, ""},
		{"s3_bad_bucket", destination.S3, map[string]any{"bucket": "Acme_Data"}, false, "config.bucket"},
		{"s3_metadata_endpoint", destination.S3, map[string]any{"bucket": "acme", "endpoint": "http://169.254.169.254"}, true, ""},
		{"s3_link_local_endpoint", destination.S3, map[string]any{"bucket": "acme", "endpoint": "https://169.254.169.254"}, false, "config.endpoint"},
		{"s3_half_credentials", destination.S3, map[string]any{"bucket": "acme", "access_key_id": "AK"}, false, "config.secret_access_key"},
		{"s3_bad_format", destination.S3, map[string]any{"bucket": "acme", "format": "xlsx"}, false, "config.format"},
		{"s3_prefix_escape", destination.S3, map[string]any{"bucket": "acme", "prefix": "a/../b"}, false, "config.prefix"},
		{"http", destination.HTTP, map[string]any{"url": "https://hooks.example.com/rows"}, false, ""},
		{"http_plain", destination.HTTP, map[string]any{"url": "http://hooks.example.com/rows"}, false, "config.url"},
		{"http_private", destination.HTTP, map[string]any{"url": "https://192.168.1.1/rows"}, false, "config.url"},
		{"http_bad_secret", destination.HTTP, map[string]any{"url": "https://hooks.example.com/rows", "signing_secret": "hunter2"}, false, "config.signing_secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := destination.Parse(tc.typ, tc.cfg, tc.allowPrivate)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Parse = %v, want valid", err)
				}
				return
			}
			var de *domain.Error
			if !errors.As(err, &de) || !errors.Is(err, domain.ErrInvalid) || len(de.Fields) != 1 || de.Fields[0].Field != tc.field {
				t.Fatalf("Parse = %+v, %v; want invalid_request naming %s", p, err, tc.field)
			}
		})
	}
}

func TestParse_secretsAreKeptApart(t *testing.T) {
	t.Parallel()
	p, err := destination.Parse(destination.Postgres, map[string]any{"url": "postgres://loader:s3cret@db.example.com:5433/app", "table": "t"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range p.Config {
		if v == "" || strings.Contains(v, "s3cret") {
			t.Fatalf("config %s = %q shows the password", k, v)
		}
	}
	if p.Config["host"] != "postgres://loader@db.example.com:5433/app" || p.Secrets["url"] != "postgres://loader:s3cret@db.example.com:5433/app" {
		t.Fatalf("parsed = %+v", p)
	}
	h, err := destination.Parse(destination.HTTP, map[string]any{"url": "https://hooks.example.com/"}, false)
	if err != nil || len(h.Secrets["signing_secret"]) < 30 || h.Config["signing_secret"] != "" {
		t.Fatalf("http = %+v, %v; want a generated secret kept apart", h, err)
	}
}

func TestDelivery_lifecycle(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	d := destination.New("psh_1", "org_1", "job_1", "dst_1", now)
	if !d.Due(now) {
		t.Fatal("a new delivery is not due")
	}
	d.Claim(now, time.Minute)
	if d.Status != destination.Delivering || d.Attempts != 1 || d.Due(now.Add(30*time.Second)) || !d.Due(now.Add(time.Minute)) {
		t.Fatalf("claimed = %+v; want delivering, due again only once the claim lapses", d)
	}
	next, retry := d.Fail("connection refused", false, now)
	if !retry || !next.Equal(now.Add(destination.Schedule[1])) || d.Status != destination.Pending || d.LastError != "connection refused" {
		t.Fatalf("after a failure: %+v, next %v %v", d, next, retry)
	}
	if err := d.Retry(now); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("Retry of a pending delivery = %v, want a conflict", err)
	}
	for d.Status == destination.Pending {
		d.Claim(now, time.Minute)
		d.Fail("still refused", false, now)
	}
	if d.Status != destination.Failed || d.Attempts != len(destination.Schedule) {
		t.Fatalf("after every attempt: %+v; want failed after %d", d, len(destination.Schedule))
	}
	if err := d.Retry(now); err != nil || d.Status != destination.Pending || d.Attempts != 0 {
		t.Fatalf("Retry of a failed delivery: %+v, %v", d, err)
	}
	d.Claim(now, time.Minute)
	if _, retry := d.Fail("destination deleted", true, now); retry || d.Status != destination.Failed {
		t.Fatalf("a final failure: %+v", d)
	}
	d.Retry(now) //nolint:errcheck // failed: a retry is allowed
	d.Claim(now, time.Minute)
	d.Succeed(10, 100, now)
	if d.Status != destination.Delivered || d.Rows != 10 || d.LastError != "" || d.Due(now.Add(time.Hour)) {
		t.Fatalf("delivered = %+v", d)
	}
}
