package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

const activeSchema = `{"fields":[{"name":"id","type":"integer"},{"name":"active","type":"boolean"}]}`

// TestImportSession_themeTextsAndLocale: a session takes every theme
// token, its texts and locale auto, shows them back, and its page carries
// them (palettes resolved, the browser's language) under a policy that
// lets the logo load from the allowed origin; each bad token, a contrast
// that fails WCAG AA (named), an unknown text key and an unknown locale
// are 400 invalid_request naming the field; on each database.
func TestImportSession_themeTextsAndLocale(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, target)
			app, key := w.app, apptest.Caller{Key: w.acmeKey}
			theme := map[string]any{"background": "#fffdf7", "surface": "#f4efe3", "text": "#222222", "muted": "#555555", "border": "#c8c0b0",
				"primary": "#7a2ee6", "primary_text": "#ffffff", "success": "#176b33", "warning": "#8a5a00", "error": "#a3121f",
				"dark": map[string]any{"background": "#101418"}, "radius": "10px", "font": "Inter, sans-serif", "font_size": "15px",
				"density": "compact", "button_style": "outline", "mode": "auto", "logo_url": "https://app.example.com/logo.png", "title": "Kontakte"}
			body := importSessionBody()
			body["locale"], body["theme"], body["texts"] = "auto", theme, map[string]string{"submit.button": "Send to Acme"}
			res := app.Do("POST", "/v1/import-sessions", key, body)
			expect(t, res, 201, "")
			var out struct {
				ID     string            `json:"id"`
				Locale string            `json:"locale"`
				Theme  map[string]any    `json:"theme"`
				Texts  map[string]string `json:"texts"`
			}
			res.JSON(t, &out)
			back, _ := json.Marshal(out.Theme)
			want, _ := json.Marshal(theme)
			if out.Locale != "auto" || string(back) != string(want) || out.Texts["submit.button"] != "Send to Acme" {
				t.Fatalf("created %s", res.Body)
			}
			get := app.Do("GET", "/v1/import-sessions/"+out.ID, key, nil)
			if !strings.Contains(get.Body, `"title":"Kontakte"`) || !strings.Contains(get.Body, `"submit.button":"Send to Acme"`) {
				t.Fatalf("read back %s", get.Body)
			}

			page := app.Do("GET", "/embed/"+out.ID, apptest.Caller{}, nil, "Accept-Language", "pt-BR,pt;q=0.9,en;q=0.5")
			expect(t, page, 200, "")
			csp := page.Header.Get("Content-Security-Policy")
			if !strings.Contains(page.Body, `lang="pt"`) || !strings.Contains(page.Body, `data-mode="auto"`) ||
				!strings.Contains(page.Body, `&#34;background&#34;:&#34;#101418&#34;`) || !strings.Contains(page.Body, `Send to Acme`) ||
				!strings.Contains(csp, "img-src 'self' data: https://app.example.com;") || !strings.Contains(page.Header.Get("Vary"), "Accept-Language") {
				t.Fatalf("page %v\n%s", page.Header, page.Body)
			}
			if fr := app.Do("GET", "/embed/"+out.ID, apptest.Caller{}, nil, "Accept-Language", "ja, fr-CA;q=0.8"); !strings.Contains(fr.Body, `lang="fr"`) {
				t.Fatalf("a French browser's page: %s", fr.Body)
			}
			if en := app.Do("GET", "/embed/"+out.ID, apptest.Caller{}, nil); !strings.Contains(en.Body, `lang="en"`) {
				t.Fatalf("a page without Accept-Language: %s", en.Body)
			}

			refusedLooks(t, app, key)
		})
	}
}

// refusedLooks: each bad theme token, a contrast that fails WCAG AA
// (named with its pair), an unknown or empty text and an unknown locale
// are 400 invalid_request naming the field.
func refusedLooks(t *testing.T, app *apptest.App, key apptest.Caller) {
	t.Helper()
	for name, c := range map[string]struct {
		set   func(map[string]any)
		field string
	}{
		"a color":           {func(b map[string]any) { b["theme"] = map[string]any{"surface": "blue"} }, "theme.surface"},
		"a dark color":      {func(b map[string]any) { b["theme"] = map[string]any{"dark": map[string]any{"text": "#12"}} }, "theme.dark.text"},
		"a font size":       {func(b map[string]any) { b["theme"] = map[string]any{"font_size": "40px"} }, "theme.font_size"},
		"a density":         {func(b map[string]any) { b["theme"] = map[string]any{"density": "airy"} }, "theme.density"},
		"a button style":    {func(b map[string]any) { b["theme"] = map[string]any{"button_style": "ghost"} }, "theme.button_style"},
		"a mode":            {func(b map[string]any) { b["theme"] = map[string]any{"mode": "night"} }, "theme.mode"},
		"a foreign logo":    {func(b map[string]any) { b["theme"] = map[string]any{"logo_url": "https://cdn.example.net/l.png"} }, "theme.logo_url"},
		"a title":           {func(b map[string]any) { b["theme"] = map[string]any{"title": strings.Repeat("t", 81)} }, "theme.title"},
		"pale text":         {func(b map[string]any) { b["theme"] = map[string]any{"text": "#aaaaaa"} }, "theme.text"},
		"a yellow button":   {func(b map[string]any) { b["theme"] = map[string]any{"primary": "#ffd400"} }, "theme.primary_text"},
		"an unknown text":   {func(b map[string]any) { b["texts"] = map[string]string{"submit.knopf": "x"} }, "texts.submit.knopf"},
		"an empty text":     {func(b map[string]any) { b["texts"] = map[string]string{"title": ""} }, "texts.title"},
		"an unknown locale": {func(b map[string]any) { b["locale"] = "ja" }, "locale"},
	} {
		b := importSessionBody()
		c.set(b)
		res := app.Do("POST", "/v1/import-sessions", key, b)
		expect(t, res, 400, "invalid_request")
		var p struct {
			Detail string `json:"detail"`
			Errors []struct {
				Field string `json:"field"`
			} `json:"errors"`
		}
		res.JSON(t, &p)
		if len(p.Errors) != 1 || p.Errors[0].Field != c.field {
			t.Errorf("%s: %s, want the field %s", name, res.Body, c.field)
		}
		if name == "pale text" && !strings.Contains(p.Detail, "theme.text (#aaaaaa) on theme.background (#ffffff)") {
			t.Errorf("the contrast problem says %q", p.Detail)
		}
	}
}

// TestImportSession_booleansInItsLanguage: a session's jobs read yes and
// no in its language, recorded in the job's options: a German session's
// job reads "ja"; a session in auto takes the uploading browser's
// language (French: "oui"), and the rerun of its job keeps it.
func TestImportSession_booleansInItsLanguage(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	var lastID string
	mint := func(locale string) apptest.Caller {
		b := map[string]any{"schema": jsonRaw(activeSchema), "allowed_origins": []string{"https://app.example.com"}, "locale": locale,
			"options": map[string]any{"review": false}}
		ses := createImportSession(t, app, key, b)
		lastID = ses.ID
		return apptest.Caller{Key: ses.ClientSecret}
	}
	run := func(who apptest.Caller, csv string, header ...string) (jobView, string) {
		req := upload(t, app, "people.csv", csv, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res := app.Request(req, who)
		expect(t, res, 202, "")
		var j jobView
		res.JSON(t, &j)
		done := waitJob(t, app, who, j.ID)
		return done, app.Do("GET", "/v1/jobs/"+j.ID+"/rows", key, nil).Body
	}
	de, rows := run(mint("de"), "id,active\n1,ja\n2,Nein\n3,oui\n")
	if de.Result == nil || de.Result.RowCount != 2 || !strings.Contains(rows, `{"id":1,"active":true}`) || !strings.Contains(rows, `{"id":2,"active":false}`) {
		t.Fatalf("a German session's job: %+v %s", de.Result, rows)
	}
	auto := mint("auto")
	autoID := lastID
	fr, rows := run(auto, "id,active\n1,oui\n2,NON\n3,ja\n", "Accept-Language", "fr-FR,fr;q=0.9")
	if fr.Result == nil || fr.Result.RowCount != 2 || !strings.Contains(rows, `{"id":1,"active":true}`) {
		t.Fatalf("a French browser's job: %+v %s", fr.Result, rows)
	}
	if j := app.Do("GET", "/v1/jobs/"+fr.ID, key, nil); !strings.Contains(j.Body, `"boolean_locale":"fr"`) {
		t.Fatalf("the job's options: %s", j.Body)
	}
	rerun := app.Do("POST", "/v1/jobs/"+fr.ID+"/rerun", auto, map[string]any{}, "Accept-Language", "de")
	expect(t, rerun, 202, "")
	var r jobView
	rerun.JSON(t, &r)
	if done := waitJob(t, app, auto, r.ID); done.Result == nil || done.Result.RowCount != 2 {
		t.Fatalf("the rerun read booleans otherwise: %+v", done.Result)
	}
	if j := app.Do("GET", "/v1/jobs/"+r.ID, key, nil); !strings.Contains(j.Body, `"boolean_locale":"fr"`) {
		t.Fatalf("the rerun's options: %s", j.Body)
	}
	// The operator's view of the session: both jobs, the first one
	// superseded, and the summary a submit would report now.
	var d struct {
		JobCount int `json:"job_count"`
		Jobs     []struct {
			ID         string `json:"id"`
			Superseded bool   `json:"superseded"`
		} `json:"jobs"`
		Summary struct {
			SubmittedAt      *string  `json:"submitted_at"`
			SupersededJobIDs []string `json:"superseded_job_ids"`
			RowsValid        int      `json:"rows_valid"`
		} `json:"summary"`
	}
	app.Do("GET", "/v1/import-sessions/"+autoID, key, nil).JSON(t, &d)
	if d.JobCount != 2 || len(d.Jobs) != 2 || d.Jobs[0].ID != fr.ID || !d.Jobs[0].Superseded || d.Jobs[1].Superseded ||
		d.Summary.SubmittedAt != nil || d.Summary.RowsValid != 2 || len(d.Summary.SupersededJobIDs) != 1 {
		t.Fatalf("the session's details: %+v", d)
	}
}

// TestImportSession_funnel: the organization's funnel counts the
// sessions created today by the steps their end users reached, with the
// median time to submit; another organization's sessions are not in it,
// and days out of 1…90 are 400; on each database.
func TestImportSession_funnel(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, target, func(c *bootstrap.Config) { c.MetricsAddr = "127.0.0.1:0" })
			app, key := w.app, apptest.Caller{Key: w.acmeKey}
			full := createImportSession(t, app, key, importSessionBody())
			secret := apptest.Caller{Key: full.ClientSecret}
			expect(t, app.Do("GET", "/v1/import-sessions/current", secret, nil), 200, "")
			id := uploadJob(t, app, secret, nil)
			awaitStatus(t, app, secret, id, "awaiting_review")
			expect(t, app.Do("POST", "/v1/jobs/"+id+"/confirm", secret, nil), 202, "")
			waitJob(t, app, secret, id)
			rerun := app.Do("POST", "/v1/jobs/"+id+"/rerun", secret, map[string]any{})
			expect(t, rerun, 202, "")
			var r jobView
			rerun.JSON(t, &r)
			waitJob(t, app, secret, r.ID)
			expect(t, app.Do("POST", "/v1/import-sessions/current/submit", secret, nil), 200, "")
			opened := createImportSession(t, app, key, importSessionBody())
			expect(t, app.Do("GET", "/v1/import-sessions/current", apptest.Caller{Key: opened.ClientSecret}, nil), 200, "")
			short := importSessionBody()
			short["expires_in"] = 60
			createImportSession(t, app, key, short)
			other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
			createImportSession(t, app, other, importSessionBody()) // another organization's
			app.Clock.Advance(2 * time.Minute)

			var f struct {
				Object string `json:"object"`
				Days   []struct {
					Day                   string   `json:"day"`
					Created               int      `json:"created"`
					Opened                int      `json:"opened"`
					Uploaded              int      `json:"uploaded"`
					ColumnsConfirmed      int      `json:"columns_confirmed"`
					FixesApplied          int      `json:"fixes_applied"`
					Submitted             int      `json:"submitted"`
					ExpiredUnused         int      `json:"expired_unused"`
					MedianSecondsToSubmit *float64 `json:"median_seconds_to_submit"`
				} `json:"days"`
				Total struct {
					Created   int `json:"created"`
					Submitted int `json:"submitted"`
				} `json:"total"`
			}
			res := app.Do("GET", "/v1/import-sessions/funnel?days=3", key, nil)
			expect(t, res, 200, "")
			res.JSON(t, &f)
			today := f.Days[len(f.Days)-1]
			if f.Object != "import_session_funnel" || len(f.Days) != 3 || f.Days[0].Created != 0 || f.Total.Created != 3 || f.Total.Submitted != 1 ||
				today.Created != 3 || today.Opened != 2 || today.Uploaded != 1 || today.ColumnsConfirmed != 1 || today.FixesApplied != 1 ||
				today.Submitted != 1 || today.ExpiredUnused != 1 || today.MedianSecondsToSubmit == nil || *today.MedianSecondsToSubmit <= 0 ||
				today.Day != app.Clock.Now().UTC().Format(time.DateOnly) {
				t.Fatalf("funnel %s", res.Body)
			}
			// /metrics: every organization's sessions of the last 24 hours,
			// one series a step and no other label (the metrics read the
			// real time: the short session has not expired there yet).
			text := scrape(t, app)
			for step, want := range map[string]float64{"created": 4, "opened": 2, "uploaded": 1, "columns_confirmed": 1, "fixes_applied": 1,
				"submitted": 1, "expired_unused": 0} {
				if got := sample(text, "tabnorm_import_sessions_funnel", `step="`+step+`"`); got != want {
					t.Errorf("metrics: %s is %v, want %v", step, got, want)
				}
			}
			if n := strings.Count(text, "\ntabnorm_import_sessions_funnel{"); n != 7 || sample(text, "tabnorm_import_sessions_median_seconds_to_submit") <= 0 {
				t.Errorf("metrics: %d funnel series:\n%s", n, text)
			}
			for _, bad := range []string{"0", "91", "x"} {
				expect(t, app.Do("GET", "/v1/import-sessions/funnel?days="+bad, key, nil), 400, "invalid_request")
			}
			expect(t, app.Do("GET", "/v1/import-sessions/funnel", secret, nil), 403, "")
		})
	}
}

// awaitStatus waits for a job to reach status.
func awaitStatus(t *testing.T, app *apptest.App, who apptest.Caller, id, status string) {
	t.Helper()
	deadline := testtime.Deadline(30 * time.Second)
	for time.Now().Before(deadline) {
		var j jobView
		app.Do("GET", "/v1/jobs/"+id, who, nil).JSON(t, &j)
		if j.Status == status {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s never reached %s", id, status)
}
