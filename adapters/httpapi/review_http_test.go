package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// checked sends requests and checks each answer's status, code and shape
// against openapi.json.
type checked struct {
	t   *testing.T
	app *apptest.App
	v   validator.Validator
}

func newChecked(t *testing.T, app *apptest.App) *checked {
	t.Helper()
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return &checked{t: t, app: app, v: v}
}

// do sends a JSON request (body as apptest.App.Do takes it) and checks the answer.
func (k *checked) do(method, path string, who apptest.Caller, body any, status int, code string, header ...string) apptest.Response {
	k.t.Helper()
	res := k.app.Do(method, path, who, body, header...)
	k.check(method, path, res, status, code)
	return res
}

// send sends a prepared request and checks the answer.
func (k *checked) send(req *http.Request, who apptest.Caller, status int, code string) apptest.Response {
	k.t.Helper()
	res := k.app.Request(req, who)
	k.check(req.Method, req.URL.RequestURI(), res, status, code)
	return res
}

func (k *checked) check(method, path string, res apptest.Response, status int, code string) {
	k.t.Helper()
	expect(k.t, res, status, code)
	req := httptest.NewRequest(method, path, nil)
	hr := &http.Response{StatusCode: res.StatusCode, Header: res.Header, Body: io.NopCloser(strings.NewReader(res.Body)), Request: req}
	if ok, errs := k.v.ValidateHttpResponse(req, hr); !ok {
		for _, e := range errs {
			k.t.Errorf("%s %s → %d: %s: %s", method, path, res.StatusCode, e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				k.t.Errorf("  at %s: %s", se.Location, se.Reason)
			}
		}
	}
}

// waitStatus polls a job until it has the status.
func waitStatus(t *testing.T, app *apptest.App, who apptest.Caller, path, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var j map[string]any
	for time.Now().Before(deadline) {
		res := app.Do("GET", path, who, nil)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Body)
		}
		j = map[string]any{}
		res.JSON(t, &j)
		if j["status"] == status {
			return j
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatalf("%s did not become %s in 30 s: %v", path, status, j)
	return nil
}

type reviewView struct {
	Object      string  `json:"object"`
	JobID       string  `json:"job_id"`
	JobStatus   string  `json:"job_status"`
	Status      string  `json:"status"`
	ExpiresAt   *string `json:"expires_at"`
	ConfirmedAt *string `json:"confirmed_at"`
	Sample      struct {
		Records      int64 `json:"records"`
		RowsValid    int64 `json:"rows_valid"`
		RowsRejected int64 `json:"rows_rejected"`
		Complete     bool  `json:"complete"`
	} `json:"sample"`
	Columns []struct {
		SourceFile   *string  `json:"source_file"`
		SourceColumn string   `json:"source_column"`
		Field        *string  `json:"field"`
		Method       *string  `json:"method"`
		Confidence   *float64 `json:"confidence"`
		Ignored      bool     `json:"ignored"`
		Alternatives []struct {
			Field, Method string
			Confidence    float64
		} `json:"alternatives"`
		Values []string `json:"values"`
	} `json:"columns"`
	UnmappedFields []string `json:"unmapped_fields"`
	Blocking       []struct {
		Code  string  `json:"code"`
		Field *string `json:"field"`
	} `json:"blocking"`
	IssueCounts []struct {
		Field    *string `json:"field"`
		Severity string  `json:"severity"`
		Code     string  `json:"code"`
		Count    int64   `json:"count"`
	} `json:"issue_counts"`
	Preview []struct {
		Row    int64           `json:"row"`
		Valid  bool            `json:"valid"`
		Values json.RawMessage `json:"values"`
		Issues []struct {
			Code  string  `json:"code"`
			Value *string `json:"value"`
		} `json:"issues"`
	} `json:"preview"`
}

// columns says each column as "Header→field/method" ("Header→-" unmapped,
// "Header→ignored").
func (r reviewView) columns() string {
	var out []string
	for _, c := range r.Columns {
		switch {
		case c.Ignored:
			out = append(out, c.SourceColumn+"→ignored")
		case c.Field == nil:
			out = append(out, c.SourceColumn+"→-")
		default:
			out = append(out, c.SourceColumn+"→"+*c.Field+"/"+*c.Method)
		}
	}
	return strings.Join(out, " ")
}

func (r reviewView) counts() string {
	var out []string
	for _, c := range r.IssueCounts {
		f := "-"
		if c.Field != nil {
			f = *c.Field
		}
		out = append(out, fmt.Sprintf("%s/%s=%d", f, c.Code, c.Count))
	}
	return strings.Join(out, " ")
}

const reviewCSV = "Ident,Courriel,Joined,Notes\n1,ann@x.io,31/01/2024,a\n2,bob@,01/02/2024,b\n3,cy@x.io,2024-03-04,c\n"

// TestReview_patchConfirmSucceeds walks a review from the proposal to the
// finished job: review → patch → confirm → succeeded, on both databases.
func TestReview_patchConfirmSucceeds(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			rcv := newHookReceiver(t)
			k.do("POST", "/v1/webhooks", key, map[string]any{"url": rcv.URL + "/hook", "events": []string{"job.awaiting_review"}}, 201, "")
			var saved struct{ ID string }
			k.do("POST", "/v1/schemas", key, map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)}, 201, "").JSON(t, &saved)

			res := k.send(upload(t, app, "people.csv", reviewCSV, map[string]string{"schema_id": saved.ID, "options": `{"review":true}`}), key, 202, "")
			var created jobView
			res.JSON(t, &created)
			path := "/v1/jobs/" + created.ID
			waitStatus(t, app, key, path, "awaiting_review")
			var job map[string]any
			k.do("GET", path, key, nil, 200, "").JSON(t, &job)
			if m := job["mapping"].([]any); len(m) != 4 || job["result"] != nil {
				t.Fatalf("job awaiting review %v", job)
			}
			var list struct{ Data []jobView }
			k.do("GET", "/v1/jobs?status=awaiting_review", key, nil, 200, "").JSON(t, &list)
			if len(list.Data) != 1 || list.Data[0].ID != created.ID {
				t.Fatalf("list %+v", list)
			}
			// The webhook hears of it.
			hook := rcv.wait(t, 1)
			if !strings.Contains(string(hook.body), `"type":"job.awaiting_review"`) || !strings.Contains(string(hook.body), created.ID) {
				t.Fatalf("webhook %s", hook.body)
			}

			var rev reviewView
			k.do("GET", path+"/review", key, nil, 200, "").JSON(t, &rev)
			if rev.Object != "job_review" || rev.Status != "pending" || rev.JobStatus != "awaiting_review" || rev.ExpiresAt == nil || rev.ConfirmedAt != nil {
				t.Fatalf("review %+v", rev)
			}
			if got := rev.columns(); got != "Ident→- Courriel→- Joined→joined/normalized Notes→-" {
				t.Fatalf("columns %s", got)
			}
			if a := rev.Columns[0].Alternatives; len(a) == 0 || a[0].Field != "id" || a[0].Method != "fuzzy" || fmt.Sprint(rev.Columns[0].Values) != "[1 2 3]" {
				t.Fatalf("Ident %+v", rev.Columns[0])
			}
			if len(rev.Blocking) != 1 || rev.Blocking[0].Code != "required_field_unmapped" || *rev.Blocking[0].Field != "id" ||
				fmt.Sprint(rev.UnmappedFields) != "[id email]" || len(rev.Preview) != 3 || rev.Sample.Records != 3 || !rev.Sample.Complete {
				t.Fatalf("review %+v", rev)
			}
			expires, _ := time.Parse(time.RFC3339, *rev.ExpiresAt)
			if d := time.Until(expires); d < 7*24*time.Hour-time.Minute || d > 7*24*time.Hour {
				t.Fatalf("expires in %v", d)
			}

			// A blocked review cannot be confirmed; bad changes are refused.
			k.do("POST", path+"/confirm", key, nil, 422, "required_field_unmapped")
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Nope": "id"}}, 422, "invalid_mapping")
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Ident": "idd"}}, 422, "invalid_mapping")
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Ident": "id", "Notes": "id"}}, 422, "invalid_mapping")
			k.do("PATCH", path+"/mapping", key, map[string]any{"columns": map[string]any{}}, 400, "invalid_request")
			k.do("PATCH", path+"/mapping", key, map[string]any{}, 400, "invalid_request")
			req, _ := http.NewRequest("PATCH", app.URL+path+"/mapping", strings.NewReader("mapping=x"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			k.send(req, key, 415, "unsupported_media_type")

			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Ident": "id", "Courriel": "email", "Notes": nil}}, 200, "").JSON(t, &rev)
			if got := rev.columns(); got != "Ident→id/explicit Courriel→email/explicit Joined→joined/normalized Notes→ignored" ||
				len(rev.Blocking) != 0 || len(rev.UnmappedFields) != 0 {
				t.Fatalf("after the change: %s %+v", got, rev)
			}
			if rev.counts() != "email/invalid_email=1" || rev.Sample.RowsValid != 2 || rev.Sample.RowsRejected != 1 {
				t.Fatalf("counts %s sample %+v", rev.counts(), rev.Sample)
			}
			if p := rev.Preview[1]; p.Valid || string(p.Values) != `{"id":2,"email":null,"joined":"2024-02-01"}` || len(p.Issues) != 1 || *p.Issues[0].Value != "bob@" {
				t.Fatalf("preview row 2 %+v %s", p, p.Values)
			}
			// A field given to another column of the file leaves the first.
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Notes": "email"}}, 200, "").JSON(t, &rev)
			if got := rev.columns(); got != "Ident→id/explicit Courriel→- Joined→joined/normalized Notes→email/explicit" || rev.counts() != "email/invalid_email=3" {
				t.Fatalf("moved: %s, counts %s", got, rev.counts())
			}
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Courriel": "email", "Notes": nil}}, 200, "").JSON(t, &rev)

			res = k.do("POST", path+"/confirm", key, nil, 202, "")
			var confirmed struct {
				Status  string
				Options struct {
					Mapping map[string]*string `json:"mapping"`
					Review  bool               `json:"review"`
				}
			}
			res.JSON(t, &confirmed)
			if res.Header.Get("Location") != path || confirmed.Status != "queued" || !confirmed.Options.Review || len(confirmed.Options.Mapping) != 4 ||
				*confirmed.Options.Mapping["Ident"] != "id" || confirmed.Options.Mapping["Notes"] != nil || *confirmed.Options.Mapping["Joined"] != "joined" {
				t.Fatalf("confirmed %s", res.Body)
			}
			k.do("POST", path+"/confirm", key, nil, 409, "job_not_awaiting_review")
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Notes": nil}}, 409, "job_not_awaiting_review")

			j := waitJob(t, app, key, created.ID)
			if j.Status != "succeeded" || j.Result.RowCount != 2 || j.Result.RejectedCount != 1 || j.Attempts != 1 {
				t.Fatalf("finished %+v", j)
			}
			rows := k.do("GET", path+"/rows.csv", key, nil, 200, "").Body
			if rows != "id,email,joined\n1,ann@x.io,2024-01-31\n3,cy@x.io,2024-03-04\n" {
				t.Fatalf("rows %q", rows)
			}
			k.do("GET", path+"/review", key, nil, 200, "").JSON(t, &rev)
			if rev.Status != "confirmed" || rev.ConfirmedAt == nil || rev.ExpiresAt != nil || rev.JobStatus != "succeeded" {
				t.Fatalf("review after the run %+v", rev)
			}
			events := app.Do("GET", path+"/events", key, nil).Body
			order := []string{"event: job.queued", "event: job.started", "event: job.awaiting_review", "event: job.queued", "event: job.started", "event: job.succeeded"}
			at := 0
			for _, e := range order {
				i := strings.Index(events[at:], e)
				if i < 0 {
					t.Fatalf("events lack %q after byte %d:\n%s", e, at, events)
				}
				at += i + len(e)
			}

			// The confirmed mapping is learned for the saved schema.
			res = k.send(upload(t, app, "people.csv", reviewCSV, map[string]string{"schema_id": saved.ID}), key, 202, "")
			res.JSON(t, &created)
			next := waitJob(t, app, key, created.ID)
			var methods []string
			for _, m := range next.Mapping {
				if m.Method != nil {
					methods = append(methods, m.SourceColumn+":"+*m.Method)
				}
			}
			if got := strings.Join(methods, " "); got != "Ident:learned Courriel:learned Joined:normalized" || next.Result.RowCount != 2 {
				t.Fatalf("next job's mapping %s (%+v)", got, next.Result)
			}
			// A job that was not reviewed has no review.
			k.do("GET", "/v1/jobs/"+created.ID+"/review", key, nil, 404, "not_found")
		})
	}
}

// TestReview_cancelDeleteAndExpire: a job awaiting review can be canceled
// and deleted, and one left alone is canceled when its review expires
// (the clock moved past TABNORM_REVIEW_TTL), on both databases.
func TestReview_cancelDeleteAndExpire(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) { c.JobLease, c.ReviewTTL = 3*time.Second, 48*time.Hour })
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			submit := func() string {
				var j jobView
				k.send(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema, "options": `{"review":true}`}), key, 202, "").JSON(t, &j)
				waitStatus(t, app, key, "/v1/jobs/"+j.ID, "awaiting_review")
				return j.ID
			}
			canceled, deleted, expired := submit(), submit(), submit()

			res := k.do("POST", "/v1/jobs/"+canceled+"/cancel", key, nil, 200, "")
			if !strings.Contains(res.Body, `"status":"canceled"`) || !strings.Contains(res.Body, `"error":null`) {
				t.Fatalf("cancel %s", res.Body)
			}
			var rev reviewView
			k.do("GET", "/v1/jobs/"+canceled+"/review", key, nil, 200, "").JSON(t, &rev)
			if rev.Status != "canceled" || rev.ExpiresAt != nil {
				t.Fatalf("canceled review %+v", rev)
			}
			k.do("POST", "/v1/jobs/"+canceled+"/confirm", key, nil, 409, "job_not_awaiting_review")

			k.do("DELETE", "/v1/jobs/"+deleted, key, nil, 204, "")
			k.do("GET", "/v1/jobs/"+deleted+"/review", key, nil, 404, "not_found")
			k.do("PATCH", "/v1/jobs/"+deleted+"/mapping", key, map[string]any{"mapping": map[string]any{}}, 404, "not_found")
			k.do("POST", "/v1/jobs/"+deleted+"/confirm", key, nil, 404, "not_found")

			// Nothing expires before the TTL; once the clock passes it, the
			// lease reaper's round cancels the job, saying why.
			time.Sleep(1500 * time.Millisecond)
			k.do("GET", "/v1/jobs/"+expired+"/review", key, nil, 200, "").JSON(t, &rev)
			if rev.Status != "pending" {
				t.Fatalf("expired early: %+v", rev)
			}
			app.Clock.Advance(48*time.Hour + time.Minute)
			j := waitStatus(t, app, key, "/v1/jobs/"+expired, "canceled")
			if e, _ := j["error"].(map[string]any); e == nil || e["code"] != "review_expired" || j["finished_at"] == nil {
				t.Fatalf("expired job %v", j)
			}
			k.do("GET", "/v1/jobs/"+expired+"/review", key, nil, 200, "").JSON(t, &rev)
			if rev.Status != "expired" {
				t.Fatalf("expired review %+v", rev)
			}
			if events := app.Do("GET", "/v1/jobs/"+expired+"/events", key, nil).Body; !strings.Contains(events, "event: job.canceled") ||
				!strings.Contains(events, `"code":"review_expired"`) {
				t.Fatalf("events %s", events)
			}
		})
	}
}

const germanCSV = "Name,Aktiv,Eintritt\n" +
	"Anna,ja,01.02.2024\n" +
	"Bernd,nein,03.04.2024\n" +
	"Clara,JA,05.06.2024\n" +
	"Dora,vielleicht,07.08.2024\n" +
	"Emil,ja,1. März 2024\n" +
	"Frieda,Nein,09.10.2024\n"

const germanSchema = `{"fields":[
	{"name":"name","type":"string","constraints":{"required":true}},
	{"name":"active","type":"boolean"},
	{"name":"joined","type":"date"}]}`

// TestFix_invalidValuesAndRerun: a finished job's rejected values of a
// field are listed with counts; a rerun on the same file with value_map
// (ja/nein, a German date) and a date order fixes them, on both databases.
func TestFix_invalidValuesAndRerun(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			var first jobView
			k.send(upload(t, app, "mitglieder.csv", germanCSV, map[string]string{"schema": germanSchema, "name": "members",
				"options": `{"mapping":{"Aktiv":"active","Eintritt":"joined"}}`}), key, 202, "").JSON(t, &first)
			path := "/v1/jobs/" + first.ID
			done := waitJob(t, app, key, first.ID)
			if done.Status != "succeeded" || done.Result.RowCount != 0 {
				t.Fatalf("first job %+v", done.Result)
			}
			type page struct {
				Object string `json:"object"`
				Data   []struct {
					Object, Value, Code string
					Count               int64
				} `json:"data"`
				NextCursor    *string `json:"next_cursor"`
				Field         string  `json:"field"`
				DistinctCount int     `json:"distinct_count"`
				Capped        bool    `json:"capped"`
			}
			var vals page
			k.do("GET", path+"/invalid-values?field=active", key, nil, 200, "").JSON(t, &vals)
			var got []string
			for _, v := range vals.Data {
				got = append(got, fmt.Sprintf("%s=%d/%s", v.Value, v.Count, v.Code))
			}
			if strings.Join(got, " ") != "ja=2/invalid_boolean JA=1/invalid_boolean Nein=1/invalid_boolean nein=1/invalid_boolean vielleicht=1/invalid_boolean" ||
				vals.Field != "active" || vals.DistinctCount != 5 || vals.Capped || vals.NextCursor != nil || vals.Data[0].Object != "invalid_value" {
				t.Fatalf("active: %v %+v", got, vals)
			}
			// Pages, by cursor.
			k.do("GET", path+"/invalid-values?field=active&limit=2", key, nil, 200, "").JSON(t, &vals)
			if len(vals.Data) != 2 || vals.NextCursor == nil {
				t.Fatalf("page 1 %+v", vals)
			}
			cursor := *vals.NextCursor
			vals = page{}
			k.do("GET", path+"/invalid-values?field=active&limit=2&cursor="+url.QueryEscape(cursor), key, nil, 200, "").JSON(t, &vals)
			if len(vals.Data) != 2 || vals.Data[0].Value != "Nein" || vals.NextCursor == nil {
				t.Fatalf("page 2 %+v", vals)
			}
			k.do("GET", path+"/invalid-values?field=joined&cursor="+url.QueryEscape(cursor), key, nil, 400, "invalid_cursor")
			k.do("GET", path+"/invalid-values?field=colour", key, nil, 400, "invalid_request")
			k.do("GET", path+"/invalid-values", key, nil, 400, "invalid_request")
			vals = page{}
			k.do("GET", path+"/invalid-values?field=joined", key, nil, 200, "").JSON(t, &vals)
			if len(vals.Data) != 1 || vals.Data[0].Value != "1. März 2024" || vals.Data[0].Code != "invalid_date" {
				t.Fatalf("joined %+v", vals)
			}

			// The rerun: the same file, no upload; value_map, case-insensitive,
			// and the day-first order the German dates need.
			body := map[string]any{"options": map[string]any{
				"value_map":                  map[string]any{"active": map[string]string{"ja": "true", "nein": "false"}, "joined": map[string]string{"1. März 2024": "2024-03-01"}},
				"value_map_case_insensitive": true, "date_order": "DMY"}}
			k.do("POST", path+"/rerun", key, map[string]any{"options": map[string]any{"colour": 1}}, 400, "invalid_request")
			k.do("POST", path+"/rerun", key, map[string]any{"options": map[string]any{"value_map": map[string]any{"colour": map[string]string{"x": "y"}}}}, 400, "invalid_request")
			k.do("POST", path+"/rerun", key, map[string]any{"mapping": map[string]any{"Nope": "name"}}, 422, "invalid_mapping")
			res := k.do("POST", path+"/rerun", key, body, 202, "", "Idempotency-Key", "fix-1")
			var rerun map[string]any
			res.JSON(t, &rerun)
			rerunID := rerun["id"].(string)
			src := rerun["source"].(map[string]any)
			if res.Header.Get("Location") != "/v1/jobs/"+rerunID || rerunID == first.ID || src["rerun_of"] != first.ID || rerun["name"] != "members" || rerun["status"] != "queued" {
				t.Fatalf("rerun %s", res.Body)
			}
			opts := rerun["options"].(map[string]any)
			if opts["date_order"] != "DMY" || opts["review"] != false || opts["mapping"].(map[string]any)["Aktiv"] != "active" || opts["mapping"].(map[string]any)["Name"] != "name" {
				t.Fatalf("rerun options %v", opts)
			}
			again := k.do("POST", path+"/rerun", key, body, 202, "", "Idempotency-Key", "fix-1")
			if again.Body != res.Body || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay %s", again.Body)
			}
			k.do("POST", path+"/rerun", key, map[string]any{}, 409, "idempotency_key_reused", "Idempotency-Key", "fix-1")
			// The original can go: the rerun has its own copy of the file.
			k.do("DELETE", path, key, nil, 204, "")
			fixed := waitJob(t, app, key, rerunID)
			if fixed.Status != "succeeded" || fixed.Result.RowCount != 5 || fixed.Result.RejectedCount != 1 {
				t.Fatalf("rerun %+v %+v", fixed, fixed.Error)
			}
			rows := k.do("GET", "/v1/jobs/"+rerunID+"/rows.csv", key, nil, 200, "").Body
			if rows != "name,active,joined\nAnna,true,2024-02-01\nBernd,false,2024-04-03\nClara,true,2024-06-05\nEmil,true,2024-03-01\nFrieda,false,2024-10-09\n" {
				t.Fatalf("rows %q", rows)
			}
			var list struct{ Data []jobView }
			k.do("GET", "/v1/jobs", key, nil, 200, "").JSON(t, &list)
			if len(list.Data) != 1 {
				t.Fatalf("jobs %+v: the replay made another", list.Data)
			}
			// A rerun of a rerun inherits its value_map and mapping.
			var second map[string]any
			k.do("POST", "/v1/jobs/"+rerunID+"/rerun", key, nil, 202, "").JSON(t, &second)
			if o := second["options"].(map[string]any); o["value_map_case_insensitive"] != true || second["source"].(map[string]any)["rerun_of"] != rerunID {
				t.Fatalf("second rerun %v", second)
			}
			if j := waitJob(t, app, key, second["id"].(string)); j.Result.RowCount != 5 {
				t.Fatalf("second rerun %+v", j.Result)
			}
		})
	}
}

// TestFix_rerunRefusals: a job that has not ended is not rerun; one whose
// file retention deleted answers 409 source_deleted.
func TestFix_rerunRefusals(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.Retention = 200 * time.Millisecond })
	k := newChecked(t, app)
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	var j jobView
	k.send(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema, "options": `{"review":true}`}), key, 202, "").JSON(t, &j)
	waitStatus(t, app, key, "/v1/jobs/"+j.ID, "awaiting_review")
	k.do("POST", "/v1/jobs/"+j.ID+"/rerun", key, nil, 409, "job_not_finished")
	k.do("GET", "/v1/jobs/"+j.ID+"/invalid-values?field=email", key, nil, 409, "job_not_finished")
	k.do("POST", "/v1/jobs/job_unknown/rerun", key, nil, 404, "not_found")
	k.do("GET", "/v1/jobs/job_unknown/invalid-values?field=email", key, nil, 404, "not_found")
	req, _ := http.NewRequest("POST", app.URL+"/v1/jobs/"+j.ID+"/rerun", strings.NewReader("x"))
	req.Header.Set("Content-Type", "text/plain")
	k.send(req, key, 415, "unsupported_media_type")
	k.do("POST", "/v1/jobs/"+j.ID+"/cancel", key, nil, 200, "")
	deadline := time.Now().Add(15 * time.Second)
	for {
		res := app.Do("POST", "/v1/jobs/"+j.ID+"/rerun", key, nil)
		if res.StatusCode == 409 {
			k.check("POST", "/v1/jobs/"+j.ID+"/rerun", res, 409, "source_deleted")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rerun of a purged job: %d %s", res.StatusCode, res.Body)
		}
		if res.StatusCode == 202 {
			var made jobView
			res.JSON(t, &made)
			app.Do("DELETE", "/v1/jobs/"+made.ID, key, nil)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestReview_connectJobs: connect jobs are reviewed, confirmed, fixed and
// rerun under /v1/connect/jobs with the connect entitlement alone; an
// upload job is not served there.
func TestReview_connectJobs(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Connect))}
			both := apptest.Caller{Key: app.Key(app.Org("Both", identity.Normalize, identity.Connect))}
			var f1, f2 fileView
			k.send(uploadTo(t, app, "/v1/connect/files", "a.csv", "Ident,Mail\n1,a@x.io\n2,ja\n", nil), key, 201, "").JSON(t, &f1)
			k.send(uploadTo(t, app, "/v1/connect/files", "b.csv", "Ident,E-mail\n3,c@x.io\n", nil), key, 201, "").JSON(t, &f2)
			var j jobView
			k.do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{f1.ID, f2.ID}, "schema": json.RawMessage(peopleSchema),
				"options": map[string]any{"review": true}}, 202, "").JSON(t, &j)
			path := "/v1/connect/jobs/" + j.ID
			waitStatus(t, app, key, path, "awaiting_review")
			var rev reviewView
			k.do("GET", path+"/review", key, nil, 200, "").JSON(t, &rev)
			if got := rev.columns(); got != "Ident→- Mail→email/fuzzy Ident→- E-mail→email/normalized" || *rev.Columns[0].SourceFile != f1.ID || *rev.Columns[3].SourceFile != f2.ID {
				t.Fatalf("columns %s", got)
			}
			// Refusals while it awaits review.
			k.do("POST", path+"/confirm", key, nil, 422, "required_field_unmapped")
			k.do("GET", path+"/invalid-values?field=email", key, nil, 409, "job_not_finished")
			k.do("GET", path+"/invalid-values?field=colour", key, nil, 400, "invalid_request")
			k.do("POST", path+"/rerun", key, nil, 409, "job_not_finished")
			k.do("PATCH", path+"/mapping", key, map[string]any{}, 400, "invalid_request")
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Nope": "id"}}, 422, "invalid_mapping")
			for _, p := range []string{path + "/mapping", path + "/rerun"} {
				method := "POST"
				if strings.HasSuffix(p, "/mapping") {
					method = "PATCH"
				}
				req, _ := http.NewRequest(method, app.URL+p, strings.NewReader("x"))
				req.Header.Set("Content-Type", "text/plain")
				k.send(req, key, 415, "unsupported_media_type")
			}
			// One header names a column in each file.
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{"Ident": "id", "Mail": "email"}}, 200, "").JSON(t, &rev)
			if got := rev.columns(); got != "Ident→id/explicit Mail→email/explicit Ident→id/explicit E-mail→email/normalized" || rev.counts() != "email/invalid_email=1" {
				t.Fatalf("columns %s counts %s", got, rev.counts())
			}
			res := k.do("POST", path+"/confirm", key, nil, 202, "", "Idempotency-Key", "c-1")
			if res.Header.Get("Location") != path {
				t.Fatalf("Location %q", res.Header.Get("Location"))
			}
			again := k.do("POST", path+"/confirm", key, nil, 202, "", "Idempotency-Key", "c-1")
			if again.Body != res.Body || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("confirm replay %s", again.Body)
			}
			k.do("POST", path+"/confirm", key, nil, 409, "job_not_awaiting_review")
			k.do("PATCH", path+"/mapping", key, map[string]any{"mapping": map[string]any{}}, 409, "job_not_awaiting_review")
			done := waitStatus(t, app, key, path, "succeeded")
			if r := done["result"].(map[string]any); r["row_count"] != 2.0 {
				t.Fatalf("connect job %v", done)
			}
			var vals struct{ Data []struct{ Value string } }
			k.do("GET", path+"/invalid-values?field=email", key, nil, 200, "").JSON(t, &vals)
			if len(vals.Data) != 1 || vals.Data[0].Value != "ja" {
				t.Fatalf("invalid values %+v", vals)
			}
			k.do("POST", path+"/rerun", key, map[string]any{"options": map[string]any{"colour": 1}}, 400, "invalid_request")
			var rerun map[string]any
			res = k.do("POST", path+"/rerun", key, map[string]any{"mapping": map[string]any{"Mail": nil}}, 202, "")
			res.JSON(t, &rerun)
			if res.Header.Get("Location") != "/v1/connect/jobs/"+rerun["id"].(string) || rerun["source"].(map[string]any)["type"] != "connect" {
				t.Fatalf("connect rerun %s", res.Body)
			}
			// Mail ignored: file a's rows keep no email and stay valid.
			if r := waitStatus(t, app, key, "/v1/connect/jobs/"+rerun["id"].(string), "succeeded")["result"].(map[string]any); r["row_count"] != 3.0 {
				t.Fatalf("connect rerun %v", r)
			}
			// A deleted library file cannot be read again.
			k.do("DELETE", "/v1/connect/files/"+f2.ID, key, nil, 204, "")
			k.do("POST", path+"/rerun", key, nil, 422, "file_not_found")

			// Entitlements: no normalize, no /v1/jobs; no connect, no
			// /v1/connect/jobs; an upload job is not a connect job.
			bare := apptest.Caller{Key: app.Key(app.Org("Bare"))}
			for _, base := range []string{"/v1/jobs/" + j.ID, path} {
				who := key
				if base == path {
					who = bare
				}
				k.do("GET", base+"/review", who, nil, 403, "forbidden_entitlement_missing")
				k.do("PATCH", base+"/mapping", who, map[string]any{"mapping": map[string]any{}}, 403, "forbidden_entitlement_missing")
				k.do("POST", base+"/confirm", who, nil, 403, "forbidden_entitlement_missing")
				k.do("GET", base+"/invalid-values?field=id", who, nil, 403, "forbidden_entitlement_missing")
				k.do("POST", base+"/rerun", who, nil, 403, "forbidden_entitlement_missing")
			}
			var up jobView
			k.send(upload(t, app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), both, 202, "").JSON(t, &up)
			for _, p := range []string{"/review", "/invalid-values?field=id"} {
				k.do("GET", "/v1/connect/jobs/"+up.ID+p, both, nil, 404, "not_found")
			}
			k.do("POST", "/v1/connect/jobs/"+up.ID+"/rerun", both, nil, 404, "not_found")
			k.do("POST", "/v1/connect/jobs/"+up.ID+"/confirm", both, nil, 404, "not_found")
			k.do("PATCH", "/v1/connect/jobs/"+up.ID+"/mapping", both, map[string]any{"mapping": map[string]any{}}, 404, "not_found")
		})
	}
}
