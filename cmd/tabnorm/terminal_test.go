package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostile is server text that would act on a terminal: a window title, a
// cleared screen, a colour, an 8-bit CSI, a carriage return that rewrites
// the line, a bell and a right-to-left override.
const hostile = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\u009b31m\rline\a\u202egnp.exe"

// escapeServer answers every job read with hostile text in its status and
// error, and every other request with a problem whose detail is hostile.
func escapeServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/jobs/job_1" {
			body, _ := json.Marshal(map[string]any{"id": "job_1", "object": "job", "status": "failed" + hostile, "mode": "normalize",
				"error": map[string]any{"code": "invalid_row", "message": hostile}})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return
		}
		body, _ := json.Marshal(map[string]any{"status": 404, "code": "not_found", "detail": hostile, "request_id": "req_1"})
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRemote_serverTextIsNotObeyed: control characters and escape
// sequences in what a server sends are printed as escapes, in text, in
// JSON and in the error line, never as themselves.
func TestRemote_serverTextIsNotObeyed(t *testing.T) {
	srv := escapeServer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("TABNORM_API_URL", srv.URL)
	t.Setenv("TABNORM_API_KEY", "svc_live_x")
	clean := func(what, s string) {
		t.Helper()
		if i := strings.IndexFunc(s, unsafeRune); i >= 0 {
			t.Errorf("%s prints %q raw: %q", what, s[i:min(len(s), i+4)], s)
		}
	}
	out, _, err := runRemote(t, "jobs", "get", "job_1")
	if err != nil || !strings.Contains(out, `\x1b]0;owned`) || !strings.Contains(out, `\u202e`) {
		t.Fatalf("jobs get: %q %v, want the escapes shown", out, err)
	}
	clean("jobs get", out)
	out, _, err = runRemote(t, "jobs", "get", "job_1", "--json")
	var j struct{ Status string }
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.Status != "failed"+hostile {
		t.Fatalf("jobs get --json: %q %v, want the same JSON", out, err)
	}
	clean("jobs get --json", out)
	_, _, err = runRemote(t, "jobs", "get", "job_2")
	if err == nil {
		t.Fatal("a 404 was not an error")
	}
	clean("the error line", message(err))
}
