package browser

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestDestinations: an admin adds an HTTP destination on /destinations
// with the keyboard alone (its made signing secret shown once), tests it,
// and sees a job's delivery among its recent deliveries; the page has no
// serious or critical axe-core violation at 375 px and on a wide screen;
// a member is told destinations are for admins.
func TestDestinations(t *testing.T) {
	browserTest(t)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("webhook-signature") == "" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer rcv.Close()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.DestinationAllowPrivate = true })
	org := app.Org("Acme", identity.Normalize)
	person(t, app, org, "ann@acme.test", identity.Admin, false)
	person(t, app, org, "max@acme.test", identity.Member, false)
	p := open(t, app)
	p.login("ann@acme.test")
	if nav := p.text("nav"); !strings.Contains(nav, "Destinations") {
		t.Fatalf("navigation has no Destinations: %q", nav)
	}
	p.visit("/destinations")
	p.checkStep(width)

	// From the keyboard: the name, the type (h picks http), the URL, Enter.
	p.tabFar("destination-name")
	p.do(chromedp.KeyEvent("receiver"))
	p.tabFar("destination-type")
	p.do(chromedp.KeyEvent("h"))
	p.until("the http settings", `!document.querySelector('#settings-http').hidden && document.querySelector('#settings-postgres').hidden`)
	p.tabFar("setting-http-url")
	p.do(chromedp.KeyEvent(rcv.URL+"/rows"), chromedp.KeyEvent(kb.Enter))
	p.until("the secret", `document.querySelector('#new-secret')?.value.startsWith('whsec_')`)
	p.until("the destination in the list", `document.querySelector('#destinations-list')?.innerText.includes('receiver')`)
	secret := eval[string](p, `document.querySelector('#new-secret').value`)

	p.do(chromedp.Click(chromedp.CSS(`#destinations-list button[id^="test-"]`)))
	p.until("the test's outcome", `document.querySelector('#test-result')?.innerText.includes('takes writes')`)

	key := apptest.Caller{Key: app.Key(org)}
	var list struct{ Data []struct{ ID string } }
	app.Do("GET", "/v1/destinations", key, nil).JSON(t, &list)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("schema", `{"fields":[{"name":"id","type":"integer"},{"name":"email"}]}`)
	_ = mw.WriteField("options", `{"destination_ids":["`+list.Data[0].ID+`"]}`)
	fw, _ := mw.CreateFormFile("file", "c.csv")
	_, _ = fw.Write([]byte("id,email\n1,a@example.com\n2,b@example.com\n3,c@example.com\n"))
	_ = mw.Close()
	req, _ := http.NewRequest("POST", app.URL+"/v1/jobs", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if res := app.Request(req, key); res.StatusCode != 202 {
		t.Fatalf("job: %d %s", res.StatusCode, res.Body)
	}
	p.until("the delivery among the recent ones", `(document.querySelector('#destinations-list button[id^="deliveries-"]').click(),
		(document.querySelector('#destination-deliveries')?.innerText ?? '').includes('delivered'))`)
	if d := p.text("#destination-deliveries"); !strings.Contains(d, "job_") || !strings.Contains(d, "\t3\t") {
		t.Errorf("recent deliveries: %q", d)
	}
	p.shot("destinations")
	p.do(chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile))
	p.checkStep(375)
	p.shot("destinations-phone")
	p.do(chromedp.EmulateViewport(width, height))
	p.visit("/destinations")
	p.until("the list", `document.querySelector('#destinations-list')?.innerText.includes('receiver')`)
	p.noTrace(secret) // shown once: gone from the page loaded again

	m := open(t, app)
	m.login("max@acme.test")
	m.visit("/destinations")
	if msg := m.text("#destinations-admins-only"); !strings.Contains(msg, "Only organization admins") {
		t.Errorf("a member is told %q", msg)
	}
}
