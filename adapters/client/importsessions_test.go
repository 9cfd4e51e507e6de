package client_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// TestImportSessions_createGetRevoke mints a session on the real server,
// reads it back without its secret and revokes it.
func TestImportSessions_createGetRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	s, err := c.CreateImportSession(ctx, client.ImportSessionParams{
		Schema:         json.RawMessage(`{"fields":[{"name":"email","type":"string","format":"email"}]}`),
		AllowedOrigins: []string{"https://app.example.com"}, Metadata: map[string]any{"customer_ref": "acct_42"},
		Locale: "auto", Theme: &client.ImportTheme{ImportPalette: client.ImportPalette{Primary: "#0b5cff"}, Mode: "dark",
			Dark: &client.ImportPalette{Background: "#101418"}, Title: "Kontakte"}, Texts: map[string]string{"submit.button": "Senden"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.ClientSecret, "imp_secret_") || s.Status != "open" || !strings.HasSuffix(s.URL, "/embed/"+s.ID) || s.Locale != "auto" ||
		s.Theme.Dark == nil || s.Theme.Dark.Background != "#101418" || s.Theme.Mode != "dark" || s.Texts["submit.button"] != "Senden" {
		t.Fatalf("created %+v", s)
	}
	got, err := c.GetImportSession(ctx, s.ID)
	if err != nil || got.ClientSecret != "" || got.JobCount == nil || *got.JobCount != 0 || string(got.Metadata) != `{"customer_ref":"acct_42"}` {
		t.Fatalf("get %+v %v", got, err)
	}
	listed := 0
	for ses, err := range c.ImportSessions(ctx, 1) {
		if err != nil || ses.ClientSecret != "" {
			t.Fatalf("list: %+v %v", ses, err)
		}
		listed++
	}
	if listed != 1 {
		t.Fatalf("listed %d sessions", listed)
	}
	if _, err := c.CreateImportSession(ctx, client.ImportSessionParams{Schema: json.RawMessage(`{"fields":[{"name":"a"}]}`),
		AllowedOrigins: []string{"https://app.example.com"}, Theme: &client.ImportTheme{ImportPalette: client.ImportPalette{Primary: "#ffee00"}}}); !client.IsCode(err, "invalid_request") {
		t.Fatalf("a yellow button with white text: %v", err)
	}
	f, err := c.ImportSessionFunnel(ctx, 2)
	if err != nil || len(f.Days) != 2 || f.Total.Created != 1 || f.Days[1].Created != 1 || f.Total.MedianSecondsToSubmit != nil {
		t.Fatalf("funnel %+v %v", f, err)
	}
	rev, err := c.RevokeImportSession(ctx, s.ID)
	if err != nil || rev.Status != "revoked" || rev.RevokedAt == nil {
		t.Fatalf("revoke %+v %v", rev, err)
	}
	if _, err := c.CreateImportSession(ctx, client.ImportSessionParams{AllowedOrigins: []string{"https://app.example.com"}}); !client.IsCode(err, "invalid_request") {
		t.Fatalf("a session without schema: %v", err)
	}
}

// TestImportSessions_rerunSupersedesJob: once a job is rerun, the job
// reads as superseded and its rerun does not.
func TestImportSessions_rerunSupersedesJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	first := finishedJob(t, c, "id,email\n1,ann@x.io\n2,bob@\n")
	if first.Superseded {
		t.Fatalf("a job no rerun replaced reads as superseded: %s", first.Raw)
	}
	fixed := "bob@x.io"
	rerun, err := c.Rerun(ctx, first.ID, client.RerunRequest{Edits: []client.Edit{{Row: 2, Field: "email", Value: &fixed}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetJob(ctx, first.ID)
	if err != nil || !got.Superseded {
		t.Fatalf("the rerun job %+v: %v", got, err)
	}
	if rerun.Superseded {
		t.Fatalf("the rerun reads as superseded: %s", rerun.Raw)
	}
}
