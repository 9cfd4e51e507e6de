package browser

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestDashboard_importSessions: an admin creates an import session for a
// test on /import-sessions (its origin prefilled, its secret shown once),
// sees it in the list and in the funnel once its importer is opened,
// filters the list by status, reads its details (jobs and summary) and
// revokes it; axe-core finds no serious or critical violation. A member
// is told to ask an admin.
func TestDashboard_importSessions(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Acme", identity.Normalize)
	person(t, app, org, "ann@acme.test", identity.Admin, false)
	person(t, app, org, "max@acme.test", identity.Member, false)
	p := open(t, app)
	p.login("ann@acme.test")
	if nav := p.text("nav"); !strings.Contains(nav, "Import sessions") {
		t.Fatalf("navigation has no Import sessions: %q", nav)
	}
	p.visit("/import-sessions")
	if got := eval[string](p, `document.getElementById('session-origin').value`); got != app.URL {
		t.Errorf("the allowed origin is prefilled with %q, want %q", got, app.URL)
	}
	p.do(chromedp.SetValue(chromedp.ID("session-locale"), "fr"), chromedp.Click(chromedp.ID("create-session")))
	p.until("the secret", `document.querySelector('#new-session-secret')?.value.startsWith('imp_secret_')`)
	secret := eval[string](p, `document.querySelector('#new-session-secret').value`)
	id := strings.TrimPrefix(p.text("#session-created h2"), "Session ")
	p.until("the session in the list", `document.querySelector('#sessions-list')?.innerText.includes('`+id+`')`)

	// The end user opens the importer and uploads a file.
	end := apptest.Caller{Key: secret}
	if res := app.Do("GET", "/v1/import-sessions/current", end, nil); res.StatusCode != 200 {
		t.Fatalf("current: %d", res.StatusCode)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = fw.Write([]byte(messyCSV))
	_ = mw.Close()
	req, _ := http.NewRequest("POST", app.URL+"/v1/jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	upload := app.Request(req, end)
	if upload.StatusCode != 202 {
		t.Fatalf("upload: %d %s", upload.StatusCode, upload.Body)
	}
	p.visit("/import-sessions")
	p.until("the funnel", `document.querySelector('#funnel tbody tr')`)
	if row := p.text("#funnel tbody tr"); !strings.HasPrefix(row, app.Clock.Now().UTC().Format(time.DateOnly)) || !strings.Contains(row, "1\t1\t1\t0\t0\t0\t0") {
		t.Errorf("today's funnel row reads %q", row)
	}
	p.checkStep(width)
	p.shot("dashboard-import-sessions")
	p.do(chromedp.SetValue(chromedp.ID("session-status"), "revoked"))
	p.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('session-status').dispatchEvent(new Event('change'))`))
	p.until("no revoked session", `document.querySelector('#sessions-list')?.innerText.includes('No revoked sessions.')`)

	p.visit("/import-sessions/" + id)
	p.until("the session's job", `document.querySelector('main table a[href^="/jobs/job_"]')`)
	if sum := p.text("#session-summary"); !strings.HasPrefix(sum, "1 final jobs") {
		t.Errorf("the summary says %q", sum)
	}
	p.checkStep(width)
	p.shot("dashboard-import-session")
	p.do(chromedp.Click(chromedp.ID("revoke-" + id)))
	p.until("the confirmation", `document.querySelector('dialog#confirm')`)
	p.do(chromedp.Click(chromedp.CSS(`dialog#confirm button.danger`)))
	p.until("revoked", `document.querySelector('main')?.innerText.includes('revoked')`)
	if res := app.Do("GET", "/v1/import-sessions/current", end, nil); res.StatusCode != 401 {
		t.Fatalf("the revoked secret: %d", res.StatusCode)
	}

	m := open(t, app)
	m.login("max@acme.test")
	m.visit("/import-sessions")
	if got := m.text("#sessions-forbidden"); !strings.Contains(got, "Only organization admins") {
		t.Errorf("a member reads %q", got)
	}
}
