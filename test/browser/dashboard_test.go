package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

const peopleSchema = apptest.PeopleSchema

// Rows 2, 4 and 5 have an issue each: a bad email, a repeated id, a date
// that does not exist.
const peopleCSV = "ID,E-mail,Joined\n1,ANN@x.io,31/01/2024\n2,bob@,01/02/2024\n3,cy@x.io,2024-03-04\n1,dup@x.io,2024-03-05\n4,dee@x.io,2024-02-30\n5,eve@x.io,2024-03-06\n"

// TestJob_uploadWatchDownload: sign in, save a schema, upload a CSV with
// it, watch the progress bar reach done over the event stream, read the
// rows and issues, download the rows as CSV.
//
// The app runs as an API node alone at first, so the job waits queued
// while the page follows its stream; a worker node on the same database
// then runs it. Without that, a small job can finish before its page has
// loaded, and the page would have nothing to follow.
func TestJob_uploadWatchDownload(t *testing.T) {
	browserTest(t)
	target := sqltest.SQLite(t)
	app := apptest.StartRole(t, target, bootstrap.RoleAPI)
	org := app.Org("Acme", identity.Normalize)
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	p := open(t, app)
	p.visit("/login")
	p.shot("login")
	p.login(admin.Email)

	p.visit("/schemas")
	p.do(
		chromedp.SendKeys(chromedp.ID("schema-name"), "people"),
		chromedp.SetValue(chromedp.ID("schema-json"), peopleSchema),
		chromedp.Click(chromedp.ID("save-schema")),
	)
	p.until("the saved schema in the list", `document.querySelector('#schemas-list')?.innerText.includes('people')`)
	p.shot("schemas")

	// A job from a file dropped on the upload zone, with the saved schema.
	startJob := func() string {
		p.visit("/jobs/new")
		csv, _ := json.Marshal(peopleCSV)
		p.do(chromedp.Evaluate[chromedp.Void](`(() => {
			const dropped = new DataTransfer();
			dropped.items.add(new File([` + string(csv) + `], 'people.csv', { type: 'text/csv' }));
			document.querySelector('.dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
		})()`))
		p.until("the dropped file", `document.querySelector('#file').files[0]?.name === 'people.csv' &&
			document.querySelector('#file-chosen').innerText.includes('people.csv')`)
		if got := eval[string](p, `document.querySelector('#schema-id option:checked').textContent`); !strings.HasPrefix(got, "people") {
			t.Fatalf("the saved schema is not picked: %q", got)
		}
		if eval[bool](p, `document.querySelector('#schema-text').checkVisibility()`) {
			t.Error("the pasted-schema field shows while a saved schema is picked")
		}
		if missing := p.unlabelled(); missing != "" {
			t.Errorf("form controls without a label on /jobs/new: %s", missing)
		}
		if !eval[bool](p, `document.querySelector('#review-first').checked`) {
			t.Error("Review columns before running is not on by default")
		}
		p.shot("new-job")
		// This test runs jobs straight through; TestReview_mappingScreen reviews one.
		p.do(chromedp.Click(chromedp.ID("review-first")), chromedp.Click(chromedp.ID("start-job")))
		p.until("the job's page", `/^\/jobs\/job_/.test(location.pathname) && document.querySelector('#job-status')?.innerText.includes('queued')`)
		return strings.TrimPrefix(eval[string](p, `location.pathname`), "/jobs/")
	}
	key := apptest.Caller{Key: app.Key(org)}

	// No worker runs yet: a second job can be canceled, then deleted.
	other := startJob()
	p.do(chromedp.Click(chromedp.ID("cancel-job")))
	p.until("the job canceled", `document.querySelector('#job-status').innerText.includes('canceled') && !document.querySelector('#cancel-job')`)
	if res := app.Do("GET", "/v1/jobs/"+other, key, nil); !strings.Contains(res.Body, `"status":"canceled"`) {
		t.Errorf("the canceled job: %s", res.Body)
	}
	p.do(chromedp.Click(chromedp.ID("delete-job")))
	p.until("the confirmation", `document.querySelector('#confirm')?.open`)
	p.do(chromedp.Click(chromedp.CSS(`#confirm button.danger`)))
	p.ready("/jobs")
	if res := app.Do("GET", "/v1/jobs/"+other, key, nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("the deleted job: %d %s", res.StatusCode, res.Body)
	}

	jobID := startJob()
	if now := eval[string](p, `document.querySelector('#progress').getAttribute('aria-valuenow')`); now != "0" {
		t.Fatalf("a queued job's progress is %s%%", now)
	}
	p.shot("job-queued")
	// The list, in a second tab, must follow the job without a reload.
	list := p.another()
	list.visit("/jobs")
	list.until("the job queued in the list", `document.querySelector('#jobs-list').innerText.includes('queued')`)
	list.do(chromedp.Evaluate[chromedp.Void](`window.sameDocument = true`))

	apptest.StartRole(t, target, bootstrap.RoleWorker, func(c *bootstrap.Config) { c.BlobURL = app.Config.BlobURL })
	p.until("the progress bar at done", `document.querySelector('#progress').getAttribute('aria-valuenow') === '100' &&
		document.querySelector('#job-status').innerText.includes('succeeded') && document.querySelector('#rows-table table')`)
	sse := strings.Join(p.events(), "\n")
	for _, kind := range []string{"job.queued", "job.started", "job.succeeded"} {
		if !strings.Contains(sse, kind+`: {"job_id":"`+jobID+`"`) {
			t.Errorf("no %s for %s came over the event stream:\n%s", kind, jobID, sse)
		}
	}

	if got := p.text("#result-summary"); got != "3 valid rows, 3 rejected, 3 issues." {
		t.Errorf("summary %q", got)
	}
	p.until("the issues", `document.querySelector('#issues-table table')`)
	rows, issues, mapping := p.text("#rows-table"), p.text("#issues-table"), p.text("#outcome")
	for _, want := range []string{"ann@x.io", "2024-01-31", "eve@x.io"} {
		if !strings.Contains(rows, want) {
			t.Errorf("rows table lacks %q:\n%s", want, rows)
		}
	}
	if strings.Contains(rows, "bob@") || strings.Contains(rows, "ANN@x.io") {
		t.Errorf("rows table shows a rejected or uncleaned value:\n%s", rows)
	}
	for _, want := range []string{"invalid_email", "not_unique", "invalid_date", "bob@", "2024-02-30"} {
		if !strings.Contains(issues, want) {
			t.Errorf("issues table lacks %q:\n%s", want, issues)
		}
	}
	if !strings.Contains(mapping, "E-mail") || !strings.Contains(mapping, "Column mapping") {
		t.Errorf("no column mapping:\n%s", mapping)
	}
	p.shot("job")

	// The real download, as a person gets it.
	ctx, cancel := context.WithTimeout(p.ctx, wait)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: p.downloads}); err != nil {
		t.Fatal(err)
	}
	p.do(chromedp.Click(chromedp.ID("download-rows-csv")))
	got := p.downloaded(jobID + "-rows.csv")
	if want := "id,email,joined\n1,ann@x.io,2024-01-31\n3,cy@x.io,2024-03-04\n5,eve@x.io,2024-03-06\n"; got != want {
		t.Errorf("downloaded CSV %q, want %q", got, want)
	}
	// The same rows as Excel, and the errors workbook, as a person gets them.
	p.do(chromedp.Click(chromedp.ID("download-rows-xlsx")))
	if got := workbookText(t, p.downloaded(jobID+"-rows.xlsx"), "Rows"); got != "id|email|joined\n1|ann@x.io|2024-01-31\n3|cy@x.io|2024-03-04\n5|eve@x.io|2024-03-06" {
		t.Errorf("downloaded workbook:\n%s", got)
	}
	p.do(chromedp.Click(chromedp.ID("download-errors-xlsx")))
	if got := workbookText(t, p.downloaded(jobID+"-issues.xlsx"), "Rows"); !strings.HasPrefix(got, "tabnorm row|ID|E-mail|Joined\n1|1|ANN@x.io|31/01/2024\n2|2|bob@|01/02/2024") {
		t.Errorf("downloaded errors workbook:\n%s", got)
	}

	list.until("the job succeeded in the list", fmt.Sprintf(`window.sameDocument &&
		document.querySelector('#jobs-list a[href="/jobs/%s"]') && document.querySelector('#jobs-list').innerText.includes('succeeded')`, jobID))
	list.shot("jobs")
}

// TestKeys: create a key on /admin/keys limited to jobs:read and expiring
// in 30 days, with the keyboard; read it from the page once, use it
// (inside and outside its scope), see its scope, expiry and last use's
// address listed, revoke it in the page, and find its plaintext nowhere
// afterwards. The page fits 375 px, with no serious or critical axe-core
// violation.
func TestKeys(t *testing.T) {
	browserTest(t)
	p := signedIn(t, "Acme", "ann@acme.test", identity.Admin, identity.Normalize)
	app := p.app
	if nav := p.text("nav"); !strings.Contains(nav, "API keys") {
		t.Fatalf("an admin's navigation has no API keys: %q", nav)
	}
	p.visit("/admin/keys")
	if missing := p.unlabelled(); missing != "" {
		t.Errorf("form controls without a label on /admin/keys: %s", missing)
	}
	p.do(chromedp.SendKeys(chromedp.ID("key-name"), "ci"),
		chromedp.Focus(chromedp.ID("scope-jobs-read")), chromedp.KeyEvent(" "),
		chromedp.SetValue(chromedp.ID("key-expires"), "30"),
		chromedp.Focus(chromedp.ID("create-key")), chromedp.KeyEvent("\r"))
	p.until("the new key", `document.querySelector('#new-key')?.value.startsWith('svc_live_')`)
	key := eval[string](p, `document.querySelector('#new-key').value`)
	if len(key) != len("svc_live_")+38 || !eval[bool](p, `document.querySelector('#new-key').readOnly`) {
		t.Fatalf("the key field: %q", key)
	}
	if w := p.text("#new-key-warning"); !strings.Contains(w, "it will not be shown again") {
		t.Errorf("warning %q", w)
	}
	p.do(chromedp.Click(chromedp.ID("copy-key")))
	p.until("the copy button's answer", `document.querySelector('#copy-status').innerText !== ''`)
	p.until("the key in the list", fmt.Sprintf(`document.querySelector('#keys-list')?.innerText.includes('svc_live_…%s')`, key[len(key)-4:]))
	p.shot("keys-created")

	key200 := app.Do("GET", "/v1/jobs", apptest.Caller{Key: key}, nil)
	if key200.StatusCode != http.StatusOK {
		t.Fatalf("the new key on /v1/jobs: %d %s", key200.StatusCode, key200.Body)
	}
	if out := app.Do("POST", "/v1/schemas", apptest.Caller{Key: key}, map[string]any{"name": "x"}); out.StatusCode != http.StatusForbidden || out.Problem(t) != "insufficient_scope" {
		t.Fatalf("the jobs:read key creating a schema: %d %s", out.StatusCode, out.Body)
	}

	// Leaving and coming back (back/forward cache included) shows no key.
	p.visit("/jobs")
	p.do(chromedp.NavigateBack())
	p.ready("/admin/keys")
	p.until("the list", `document.querySelector('#keys-list table')`)
	p.noTrace(key)

	p.do(chromedp.Click(chromedp.CSS(`#keys-list button[id^="revoke-"]`)))
	p.until("the confirmation", `document.querySelector('#confirm')?.open`)
	p.do(chromedp.Click(chromedp.CSS(`#confirm button.danger`)))
	p.until("the key revoked", `document.querySelector('#keys-list').innerText.includes('Revoked')`)
	refused := app.Do("GET", "/v1/jobs", apptest.Caller{Key: key}, nil)
	if refused.StatusCode != http.StatusUnauthorized || refused.Problem(t) != "invalid_api_key" {
		t.Fatalf("the revoked key on /v1/jobs: %d %s", refused.StatusCode, refused.Body)
	}

	p.do(chromedp.Reload())
	p.ready("/admin/keys")
	p.until("the list", `document.querySelector('#keys-list table')`)
	p.noTrace(key)
	if used := p.text("#keys-list tbody tr td:nth-child(5)"); !strings.Contains(used, "from 127.0.0.1") {
		t.Errorf("the key's last use and its address are not shown: %q", used)
	}
	if row := p.text("#keys-list tbody tr"); !strings.Contains(row, "jobs:read") || strings.Contains(row, "never") || !strings.Contains(row, "Revoked") {
		t.Errorf("the key's row lacks its scope, expiry or revocation: %q", row)
	}
	p.checkStep(width)
	p.shot("keys")
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.visit("/admin/keys")
	p.until("the list", `document.querySelector('#keys-list table')`)
	p.checkStep(375)
	p.shot("keys-phone")
}

// TestMemberWithoutConnect: a member sees no key management, and an
// organization without connect gets the explanation; both as the API says.
func TestMemberWithoutConnect(t *testing.T) {
	browserTest(t)
	p := signedIn(t, "Bare", "bo@bare.test", identity.Member, identity.Normalize)
	if nav := p.text("nav"); strings.Contains(nav, "API keys") || !strings.Contains(nav, "Jobs") {
		t.Errorf("a member's navigation: %q", nav)
	}

	p.refusal("/admin/keys", "Only organization admins manage API keys", "#create-key, #keys-list",
		"/v1/admin/keys", "insufficient_permissions")
	p.shot("keys-member")
	p.refusal("/connect", "Your organization does not have the connect product; ask your account team",
		"#upload-form, #connect-job", "/v1/connect/files", "forbidden_entitlement_missing")
	p.shot("connect-unavailable")

	// A phone: the page fits 375 px, nothing scrolls sideways but tables.
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	for _, path := range []string{"/jobs/new", "/jobs"} {
		p.visit(path)
		if w := eval[int](p, `document.documentElement.scrollWidth`); w > 375 {
			t.Errorf("%s is %d px wide on a 375 px screen", path, w)
		}
	}
	p.shot("phone-jobs")
}

// TestStaffImpersonation: staff act as an organization with a banner on
// every page, under that organization's entitlements (API.md §3), and stop.
func TestStaffImpersonation(t *testing.T) {
	browserTest(t)
	app := apptest.Start(t, sqltest.SQLite(t))
	home := app.Org("Tabnorm staff", identity.Normalize)
	staff := person(t, app, home, "sam@tabnorm.test", identity.Member, true)
	acme := app.Org("Acme", identity.Normalize)
	p := open(t, app)
	p.login(staff.Email)
	if nav := p.text("nav"); !strings.Contains(nav, "Organizations") || strings.Contains(nav, "API keys") {
		t.Errorf("a staff member's navigation: %q", nav)
	}
	p.visit("/staff/organizations")
	p.until("Acme in the list", `document.querySelector('#organizations-list')?.innerText.includes('Acme')`)
	p.shot("organizations")

	p.do(chromedp.Click(chromedp.ID("impersonate-" + acme.ID)))
	p.ready("/jobs")
	for _, path := range []string{"/jobs", "/schemas", "/connect"} {
		if path != "/jobs" {
			p.visit(path)
		}
		if banner := p.text("#banner"); banner != "You are acting as Acme — Stop" {
			t.Errorf("banner on %s: %q", path, banner)
		}
	}
	if nav := p.text("nav"); !strings.Contains(nav, "API keys") || strings.Contains(nav, "Organizations") {
		t.Errorf("navigation while acting as an admin of Acme: %q", nav)
	}
	// The staff bypass is off while impersonating: Acme's entitlements apply.
	p.refusal("/connect", "does not have the connect product", "#upload-form, #connect-job",
		"/v1/connect/files", "forbidden_entitlement_missing")
	if got := eval[string](p, `fetch('/auth/me').then((r) => r.json()).then((m) => m.impersonating?.organization_id ?? '')`); got != acme.ID {
		t.Errorf("/auth/me impersonating %q, want %s", got, acme.ID)
	}
	p.shot("impersonating")

	p.do(chromedp.Click(chromedp.ID("stop-impersonating")))
	p.ready("/staff/organizations")
	if banner := p.text("#banner"); banner != "" {
		t.Errorf("banner after stopping: %q", banner)
	}
	// Staff again: the bypass applies (their own organization has no connect).
	if status, code := p.fetch("/v1/connect/files"); status != 200 {
		t.Errorf("connect as staff after stopping: %d %s", status, code)
	}
}

// TestSessions: the CSP is enforced, logout ends the session, and an
// expired session goes back to the login page with a message.
func TestSessions(t *testing.T) {
	browserTest(t)
	const email = "ann@acme.test"
	p := signedIn(t, "Acme", email, identity.Admin, identity.Normalize)
	app := p.app

	// An injected inline script is refused by the browser, and reported.
	p.expect("Content Security Policy")
	ran := eval[bool](p, `new Promise((resolve) => {
		document.addEventListener('securitypolicyviolation', () => setTimeout(() => resolve(!!window.injected), 50), { once: true });
		const s = document.createElement('script');
		s.textContent = 'window.injected = true';
		document.body.append(s);
	})`)
	if ran {
		t.Error("an inline script ran despite the Content-Security-Policy")
	}

	cookie := p.cookie()
	if me := app.Do("GET", "/auth/me", apptest.Caller{Session: cookie}, nil); cookie == "" || me.StatusCode != 200 {
		t.Fatalf("session cookie %q on /auth/me: %d", cookie, me.StatusCode)
	}
	p.do(chromedp.Click(chromedp.ID("sign-out")))
	p.ready("/login")
	if msg := p.text("#login-message"); msg != "You have signed out." {
		t.Errorf("after signing out: %q", msg)
	}
	if left := p.cookie(); left != "" {
		t.Errorf("the browser still has a session cookie")
	}
	if me := app.Do("GET", "/auth/me", apptest.Caller{Session: cookie}, nil); me.StatusCode != 401 || me.Problem(t) != "unauthenticated" {
		t.Errorf("the old cookie after logout: %d %s", me.StatusCode, me.Body)
	}

	p.login(email)
	p.visit("/schemas")
	app.Clock.Advance(13 * time.Hour) // past the 12 h idle limit
	p.expect("/auth/me", "401")
	p.do(chromedp.Reload())
	p.ready("/login")
	if msg := p.text("#login-message"); msg != "Your session has expired, please sign in again." {
		t.Errorf("after expiry: %q", msg)
	}
	if missing := p.unlabelled(); missing != "" {
		t.Errorf("form controls without a label on /login: %s", missing)
	}
	p.shot("login-expired")
	p.do(
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), apptest.Password),
		chromedp.Click(chromedp.ID("sign-in")),
	)
	p.ready("/schemas") // back where the session ended
}

// TestConnect: an organization with connect uploads files to its library,
// picks two in an order, and runs one job over them.
func TestConnect(t *testing.T) {
	browserTest(t)
	p := signedIn(t, "Acme", "ann@acme.test", identity.Admin, identity.Normalize, identity.Connect)
	p.visit("/connect")
	dir := t.TempDir()
	jan, feb := filepath.Join(dir, "january.csv"), filepath.Join(dir, "february.csv")
	february := "id,email,joined\n" // 30 rows: more than a page of the rows table
	for i := 3; i < 33; i++ {
		february += fmt.Sprintf("%d,user%d@x.io,2024-02-03\n", i, i)
	}
	for path, content := range map[string]string{
		jan: "ID,E-mail,Joined\n1,ann@x.io,2024-01-31\n2,bob@,2024-01-02\n",
		feb: february,
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p.do(chromedp.SetUploadFiles(chromedp.ID("connect-file"), []string{jan, feb}), chromedp.Click(chromedp.ID("upload-files")))
	p.until("both files in the library", `document.querySelector('#files-list').innerText.includes('january.csv') &&
		document.querySelector('#files-list').innerText.includes('february.csv')`)
	p.do(
		chromedp.Click(chromedp.CSS(`input[aria-label="Use february.csv"]`)),
		chromedp.Click(chromedp.CSS(`input[aria-label="Use january.csv"]`)),
		chromedp.Click(chromedp.ID("schema-source-pasted")),
		chromedp.SetValue(chromedp.ID("schema-text"), peopleSchema),
	)
	if order := p.text("#chosen-files"); order != "Read in this order: february.csv, january.csv" {
		t.Errorf("chosen files: %q", order)
	}
	if missing := p.unlabelled(); missing != "" {
		t.Errorf("form controls without a label on /connect: %s", missing)
	}
	p.shot("connect")

	p.do(chromedp.Click(chromedp.ID("review-first")), chromedp.Click(chromedp.ID("start-connect-job")))
	p.until("the job done", `/^\/jobs\/job_/.test(location.pathname) && document.querySelector('#job-status')?.innerText.includes('succeeded') &&
		document.querySelector('#rows-table table') && document.querySelector('#issues-table table')`)
	if issues := p.text("#issues-table"); !strings.Contains(issues, "january.csv") || !strings.Contains(issues, "invalid_email") {
		t.Errorf("issues do not name their file:\n%s", issues)
	}
	// Each file was mapped by its own header.
	if mapping := p.text("#outcome"); !strings.Contains(mapping, "february.csv\tid\tid\texact") || !strings.Contains(mapping, "january.csv\tE-mail\temail\tnormalized") {
		t.Errorf("the mapping does not name each column's file:\n%s", mapping)
	}
	// February's rows come first, a page at a time; January's last one on page 2.
	if rows := p.text("#rows-table"); !strings.Contains(rows, "user3@x.io") || strings.Contains(rows, "ann@x.io") || !strings.Contains(rows, "Page 1") {
		t.Errorf("page 1 of the rows:\n%s", rows)
	}
	p.shot("connect-job")
	p.do(chromedp.Click(chromedp.CSS(`#rows-table .pager button:last-child`)))
	p.until("page 2 of the rows", `document.querySelector('#rows-table').innerText.includes('Page 2')`)
	if rows := p.text("#rows-table"); !strings.Contains(rows, "ann@x.io") || strings.Contains(rows, "user3@x.io") {
		t.Errorf("page 2 of the rows:\n%s", rows)
	}
	// The last page's Next is disabled: focus moved to the table, not lost.
	if focused := eval[string](p, `document.activeElement.getAttribute('aria-label') ?? document.activeElement.tagName`); focused != "Rows" {
		t.Errorf("focus after turning the page is on %q", focused)
	}
}

// TestConnectOnly: an organization with connect but not normalize follows
// its connect jobs through the connect routes, on the same pages.
func TestConnectOnly(t *testing.T) {
	browserTest(t)
	p := signedIn(t, "Solo", "sol@solo.test", identity.Admin, identity.Connect)
	path := filepath.Join(t.TempDir(), "march.csv")
	if err := os.WriteFile(path, []byte("ID,E-mail,Joined\n1,ann@x.io,2024-03-01\n2,bob@,2024-03-02\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.visit("/connect")
	p.do(chromedp.SetUploadFiles(chromedp.ID("connect-file"), []string{path}), chromedp.Click(chromedp.ID("upload-files")))
	p.until("the file in the library", `document.querySelector('#files-list').innerText.includes('march.csv')`)
	p.do(
		chromedp.Click(chromedp.CSS(`input[aria-label="Use march.csv"]`)),
		chromedp.Click(chromedp.ID("schema-source-pasted")),
		chromedp.SetValue(chromedp.ID("schema-text"), peopleSchema),
		chromedp.Click(chromedp.ID("review-first")),
		chromedp.Click(chromedp.ID("start-connect-job")),
	)
	p.until("the job done", `/^\/jobs\/job_/.test(location.pathname) && document.querySelector('#job-status')?.innerText.includes('succeeded') &&
		document.querySelector('#rows-table table') && document.querySelector('#issues-table table')`)
	if rows := p.text("#rows-table"); !strings.Contains(rows, "ann@x.io") || strings.Contains(rows, "bob@") {
		t.Errorf("rows:\n%s", rows)
	}
	if href := eval[string](p, `document.querySelector('#download-rows-csv').getAttribute('href')`); !strings.HasPrefix(href, "/v1/connect/jobs/job_") {
		t.Errorf("rows download at %q, want the connect route", href)
	}
	p.visit("/jobs")
	p.until("the job listed", `document.querySelector('#jobs-list').innerText.includes('march.csv') &&
		document.querySelector('#jobs-list').innerText.includes('succeeded')`)
	// Uploads and saved schemas are normalize's: not offered.
	if nav := p.text("nav"); strings.Contains(nav, "New job") || strings.Contains(nav, "Schemas") || !strings.Contains(nav, "Connect") {
		t.Errorf("navigation without normalize: %q", nav)
	}
}

// workbookText is a downloaded workbook's sheet, a line a row, cells
// joined with |.
func workbookText(t *testing.T, body, sheet string) string {
	t.Helper()
	f, err := excelize.OpenReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, "|")
	}
	return strings.Join(lines, "\n")
}
