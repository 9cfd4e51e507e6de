package portstest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// WebhookSender is the suite of ports.WebhookSender. open returns a
// sender allowed to reach loopback, where the suite's receivers listen.
func WebhookSender(t *testing.T, open func(t *testing.T) ports.WebhookSender) {
	t.Helper()
	runSteps(t, open, []step[ports.WebhookSender]{
		{"sends_the_body_and_headers_and_keeps_the_answer", senderSends},
		{"follows_no_redirect", senderNoRedirect},
		{"no_answer_is_an_attempt_error", senderNoAnswer},
	})
}

func senderSends(t *testing.T, s ports.WebhookSender) {
	var header http.Header
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, strings.Repeat("x", 2*webhook.MaxResponseBody))
	}))
	defer srv.Close()
	a := s.Send(context.Background(), ports.WebhookRequest{URL: srv.URL + "/hook", Body: []byte(`{"a":1}`), Headers: map[string]string{"webhook-id": "dlv_1"}})
	if a.StatusCode != http.StatusAccepted || !a.OK() || a.Error != "" || len(a.ResponseBody) != webhook.MaxResponseBody || a.Latency <= 0 || a.At.IsZero() {
		t.Fatalf("WebhookSender.Send = %+v; want 202, OK, no error, the response body cut at its limit", a)
	}
	if body != `{"a":1}` || header.Get("Webhook-Id") != "dlv_1" || header.Get("Content-Type") != "application/json" {
		t.Fatalf("WebhookSender.Send: the receiver saw %q with %v; want the body and headers sent, as JSON", body, header)
	}
}

func senderNoRedirect(t *testing.T, s ports.WebhookSender) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	a := s.Send(context.Background(), ports.WebhookRequest{URL: redirector.URL})
	if a.StatusCode != http.StatusTemporaryRedirect || a.OK() || hits.Load() != 0 {
		t.Fatalf("WebhookSender.Send to a redirect = %+v, its target hit %d times; want the 307 as the answer, not followed", a, hits.Load())
	}
}

func senderNoAnswer(t *testing.T, s ports.WebhookSender) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	url := srv.URL
	srv.Close()
	if a := s.Send(context.Background(), ports.WebhookRequest{URL: url}); a.StatusCode != 0 || a.Error == "" || a.OK() {
		t.Fatalf("WebhookSender.Send to a closed port = %+v; want no status, an error, not OK", a)
	}
}

// TableOpener is the suite of ports.TableOpener, on CSV, TSV and JSON
// lines (the formats a few bytes can hold).
func TableOpener(t *testing.T, open func(t *testing.T) ports.TableOpener) {
	t.Helper()
	runSteps(t, open, []step[ports.TableOpener]{
		{"sniff_tells_the_text_formats", openerSniffs},
		{"sniff_refuses_other_files", openerRefuses},
		{"open_reads_the_header_and_records", openerReads},
		{"a_missing_file_is_unreadable", openerMissing},
	})
}

func openerSniffs(t *testing.T, o ports.TableOpener) {
	for _, c := range []struct {
		head, name string
		want       table.Format
	}{
		{"name,email\nann,ann@example.com\nbob,bob@example.com\n", "people.csv", table.CSV},
		{"name\temail\nann\tann@example.com\nbob\tbob@example.com\n", "people.tsv", table.TSV},
		{"{\"name\":\"ann\"}\n{\"name\":\"bob\"}\n", "people.jsonl", table.JSONL},
	} {
		if got, err := o.Sniff([]byte(c.head), c.name); err != nil || got != c.want {
			t.Errorf("TableOpener.Sniff(%s) = %s, %v; want %s", c.name, got, err, c.want)
		}
	}
}

func openerRefuses(t *testing.T, o ports.TableOpener) {
	_, err := o.Sniff([]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n"), "report.csv")
	isKind(t, err, table.ErrUnsupportedFormat, "TableOpener.Sniff: of a PDF named .csv")
}

func openerReads(t *testing.T, o ports.TableOpener) {
	path := filepath.Join(t.TempDir(), "people.csv")
	ok(t, os.WriteFile(path, []byte("name,email\nann,ann@example.com\nbob,bob@example.com\n"), 0o600))
	r, err := o.Open(context.Background(), path, "people.csv", table.ReadOptions{})
	ok(t, err)
	defer func() { _ = r.Close() }()
	if r.Format() != table.CSV || !slices.Equal(r.Header(), []string{"name", "email"}) {
		t.Fatalf("TableOpener.Open = format %s, header %q; want csv and [name email]", r.Format(), r.Header())
	}
	var got [][]string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		ok(t, err)
		got = append(got, slices.Clone(rec.Cells))
	}
	if len(got) != 2 || !slices.Equal(got[0], []string{"ann", "ann@example.com"}) || !slices.Equal(got[1], []string{"bob", "bob@example.com"}) {
		t.Fatalf("TableOpener.Open then Next = records %q; want ann's and bob's", got)
	}
}

func openerMissing(t *testing.T, o ports.TableOpener) {
	_, err := o.Open(context.Background(), filepath.Join(t.TempDir(), "gone.csv"), "gone.csv", table.ReadOptions{})
	isKind(t, err, table.ErrUnreadable, "TableOpener.Open: of a missing file")
}

// Clock is the suite of ports.Clock for a clock that tells the real time.
func Clock(t *testing.T, c ports.Clock) {
	t.Helper()
	t.Run("now_is_the_current_time_in_UTC", func(t *testing.T) {
		before := time.Now()
		got := c.Now()
		after := time.Now()
		if got.Location() != time.UTC || got.Before(before.Add(-time.Second)) || got.After(after.Add(time.Second)) {
			t.Fatalf("Clock.Now = %v; want UTC, between %v and %v", got, before, after)
		}
	})
}
