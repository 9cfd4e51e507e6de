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
	"github.com/tabnorm/tabnorm/test/testtime"
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
	deadline := testtime.Deadline(30 * time.Second)
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

const reviewCSV = "Pos,Contact,Joined,Notes\n1,ann@x.io,31/01/2024,a\n2,bob@,01/02/2024,b\n3,cy@x.io,2024-03-04,c\n"

// TestReview_patchConfirmSucceeds walks a review from the proposal to the
// finished job: review → patch → confirm → succeeded, on both databases.
func TestReview_patchConfirmSucceeds(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) { c.WebhookAllowPrivate = true })
			r := &reviewed{app: app, k: newChecked(t, app), key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}, rcv: newHookReceiver(t)}
			script(t, r,
				scriptStep[*reviewed]{"a_reviewed_job_stops_awaiting_review", reviewAwaits},
				scriptStep[*reviewed]{"the_proposal", reviewProposed},
				scriptStep[*reviewed]{"blocked_confirmations_and_bad_changes_are_refused", reviewRefusals},
				scriptStep[*reviewed]{"changes_remap_and_move_fields", reviewChanges},
				scriptStep[*reviewed]{"confirm_runs_the_job", reviewConfirm},
				scriptStep[*reviewed]{"the_confirmed_mapping_is_learned", reviewLearned},
			)
		})
	}
}

// reviewed is the state of the review script: a saved schema and the job
// under review.
type reviewed struct {
	app      *apptest.App
	k        *checked
	key      apptest.Caller
	rcv      *hookReceiver
	schemaID string
	jobID    string
	path     string // the job's
}

func reviewAwaits(t *testing.T, r *reviewed) {
	r.k.do("POST", "/v1/webhooks", r.key, map[string]any{"url": r.rcv.URL + "/hook", "events": []string{"job.awaiting_review"}}, 201, "")
	var saved struct{ ID string }
	r.k.do("POST", "/v1/schemas", r.key, map[string]any{"name": "people", "schema": json.RawMessage(peopleSchema)}, 201, "").JSON(t, &saved)
	r.schemaID = saved.ID
	res := r.k.send(upload(t, r.app, "people.csv", reviewCSV, map[string]string{"schema_id": saved.ID, "options": `{"review":true}`}), r.key, 202, "")
	var created jobView
	res.JSON(t, &created)
	r.jobID, r.path = created.ID, "/v1/jobs/"+created.ID
	waitStatus(t, r.app, r.key, r.path, "awaiting_review")
	var job map[string]any
	r.k.do("GET", r.path, r.key, nil, 200, "").JSON(t, &job)
	if m := job["mapping"].([]any); len(m) != 4 || job["result"] != nil {
		t.Fatalf("job awaiting review %v", job)
	}
	var list struct{ Data []jobView }
	r.k.do("GET", "/v1/jobs?status=awaiting_review", r.key, nil, 200, "").JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != r.jobID {
		t.Fatalf("list %+v", list)
	}
	// The webhook hears of it.
	hook := r.rcv.wait(t, 1)
	if !strings.Contains(string(hook.body), `"type":"job.awaiting_review"`) || !strings.Contains(string(hook.body), r.jobID) {
		t.Fatalf("webhook %s", hook.body)
	}
}

func reviewProposed(t *testing.T, r *reviewed) {
	var rev reviewView
	r.k.do("GET", r.path+"/review", r.key, nil, 200, "").JSON(t, &rev)
	if rev.Object != "job_review" || rev.Status != "pending" || rev.JobStatus != "awaiting_review" || rev.ExpiresAt == nil || rev.ConfirmedAt != nil {
		t.Fatalf("review %+v", rev)
	}
	if got := rev.columns(); got != "Pos→- Contact→- Joined→joined/normalized Notes→-" {
		t.Fatalf("columns %s", got)
	}
	if a := rev.Columns[0].Alternatives; len(a) == 0 || a[0].Field != "id" || a[0].Method != "content" || fmt.Sprint(rev.Columns[0].Values) != "[1 2 3]" {
		t.Fatalf("Pos %+v", rev.Columns[0])
	}
	if len(rev.Blocking) != 1 || rev.Blocking[0].Code != "required_field_unmapped" || *rev.Blocking[0].Field != "id" ||
		fmt.Sprint(rev.UnmappedFields) != "[id email]" || len(rev.Preview) != 3 || rev.Sample.Records != 3 || !rev.Sample.Complete {
		t.Fatalf("review %+v", rev)
	}
	expires, _ := time.Parse(time.RFC3339, *rev.ExpiresAt)
	if d := time.Until(expires); d < 7*24*time.Hour-time.Minute || d > 7*24*time.Hour {
		t.Fatalf("expires in %v", d)
	}
}

func reviewRefusals(_ *testing.T, r *reviewed) {
	r.k.do("POST", r.path+"/confirm", r.key, nil, 422, "required_field_unmapped")
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Nope": "id"}}, 422, "invalid_mapping")
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Pos": "idd"}}, 422, "invalid_mapping")
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Pos": "id", "Notes": "id"}}, 422, "invalid_mapping")
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"columns": map[string]any{}}, 400, "invalid_request")
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{}, 400, "invalid_request")
	req, _ := http.NewRequest("PATCH", r.app.URL+r.path+"/mapping", strings.NewReader("mapping=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.k.send(req, r.key, 415, "unsupported_media_type")
}

// reviewChanges: a change remaps columns and recomputes the review; a
// field given to another column of the file leaves the first.
func reviewChanges(t *testing.T, r *reviewed) {
	var rev reviewView
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Pos": "id", "Contact": "email", "Notes": nil}}, 200, "").JSON(t, &rev)
	if got := rev.columns(); got != "Pos→id/explicit Contact→email/explicit Joined→joined/normalized Notes→ignored" ||
		len(rev.Blocking) != 0 || len(rev.UnmappedFields) != 0 {
		t.Fatalf("after the change: %s %+v", got, rev)
	}
	if rev.counts() != "email/invalid_email=1" || rev.Sample.RowsValid != 2 || rev.Sample.RowsRejected != 1 {
		t.Fatalf("counts %s sample %+v", rev.counts(), rev.Sample)
	}
	if p := rev.Preview[1]; p.Valid || string(p.Values) != `{"id":2,"email":null,"joined":"2024-02-01"}` || len(p.Issues) != 1 || *p.Issues[0].Value != "bob@" {
		t.Fatalf("preview row 2 %+v %s", p, p.Values)
	}
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Notes": "email"}}, 200, "").JSON(t, &rev)
	if got := rev.columns(); got != "Pos→id/explicit Contact→- Joined→joined/normalized Notes→email/explicit" || rev.counts() != "email/invalid_email=3" {
		t.Fatalf("moved: %s, counts %s", got, rev.counts())
	}
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Contact": "email", "Notes": nil}}, 200, "")
}

// reviewConfirm: the confirmation queues the job with its mapping, and the
// job runs to its end as any other, its events in order.
func reviewConfirm(t *testing.T, r *reviewed) {
	res := r.k.do("POST", r.path+"/confirm", r.key, nil, 202, "")
	var confirmed struct {
		Status  string
		Options struct {
			Mapping map[string]*string `json:"mapping"`
			Review  bool               `json:"review"`
		}
	}
	res.JSON(t, &confirmed)
	if res.Header.Get("Location") != r.path || confirmed.Status != "queued" || !confirmed.Options.Review || len(confirmed.Options.Mapping) != 4 ||
		*confirmed.Options.Mapping["Pos"] != "id" || confirmed.Options.Mapping["Notes"] != nil || *confirmed.Options.Mapping["Joined"] != "joined" {
		t.Fatalf("confirmed %s", res.Body)
	}
	r.k.do("POST", r.path+"/confirm", r.key, nil, 409, "job_not_awaiting_review")
	r.k.do("PATCH", r.path+"/mapping", r.key, map[string]any{"mapping": map[string]any{"Notes": nil}}, 409, "job_not_awaiting_review")

	j := waitJob(t, r.app, r.key, r.jobID)
	if j.Status != "succeeded" || j.Result.RowCount != 2 || j.Result.RejectedCount != 1 || j.Attempts != 1 {
		t.Fatalf("finished %+v", j)
	}
	if rows := r.k.do("GET", r.path+"/rows.csv", r.key, nil, 200, "").Body; rows != "id,email,joined\n1,ann@x.io,2024-01-31\n3,cy@x.io,2024-03-04\n" {
		t.Fatalf("rows %q", rows)
	}
	var rev reviewView
	r.k.do("GET", r.path+"/review", r.key, nil, 200, "").JSON(t, &rev)
	if rev.Status != "confirmed" || rev.ConfirmedAt == nil || rev.ExpiresAt != nil || rev.JobStatus != "succeeded" {
		t.Fatalf("review after the run %+v", rev)
	}
	events := r.app.Do("GET", r.path+"/events", r.key, nil).Body
	at := 0
	for _, e := range []string{"event: job.queued", "event: job.started", "event: job.awaiting_review", "event: job.queued", "event: job.started", "event: job.succeeded"} {
		i := strings.Index(events[at:], e)
		if i < 0 {
			t.Fatalf("events lack %q after byte %d:\n%s", e, at, events)
		}
		at += i + len(e)
	}
}

// reviewLearned: the confirmed mapping is learned for the saved schema;
// a job that was not reviewed has no review.
func reviewLearned(t *testing.T, r *reviewed) {
	res := r.k.send(upload(t, r.app, "people.csv", reviewCSV, map[string]string{"schema_id": r.schemaID}), r.key, 202, "")
	var created jobView
	res.JSON(t, &created)
	next := waitJob(t, r.app, r.key, created.ID)
	var methods []string
	for _, m := range next.Mapping {
		if m.Method != nil {
			methods = append(methods, m.SourceColumn+":"+*m.Method)
		}
	}
	if got := strings.Join(methods, " "); got != "Pos:learned Contact:learned Joined:normalized" || next.Result.RowCount != 2 {
		t.Fatalf("next job's mapping %s (%+v)", got, next.Result)
	}
	r.k.do("GET", "/v1/jobs/"+created.ID+"/review", r.key, nil, 404, "not_found")
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
			f := &fixing{app: app, k: newChecked(t, app), key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}}
			script(t, f,
				scriptStep[*fixing]{"a_job_with_invalid_values", fixFirstJob},
				scriptStep[*fixing]{"invalid_values_by_field_in_pages", fixInvalidValues},
				scriptStep[*fixing]{"a_rerun_on_the_same_file", fixRerun},
				scriptStep[*fixing]{"the_rerun_fixes_the_values", fixRerunRows},
				scriptStep[*fixing]{"a_rerun_of_a_rerun_inherits_its_options", fixRerunOfRerun},
			)
		})
	}
}

// fixing is the state of the fix script: the first job and its rerun.
type fixing struct {
	app     *apptest.App
	k       *checked
	key     apptest.Caller
	firstID string
	rerunID string
}

// invalidValues is a page of GET …/invalid-values.
type invalidValues struct {
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

func fixFirstJob(t *testing.T, f *fixing) {
	var first jobView
	f.k.send(upload(t, f.app, "mitglieder.csv", germanCSV, map[string]string{"schema": germanSchema, "name": "members",
		"options": `{"mapping":{"Aktiv":"active","Eintritt":"joined"}}`}), f.key, 202, "").JSON(t, &first)
	f.firstID = first.ID
	if done := waitJob(t, f.app, f.key, first.ID); done.Status != "succeeded" || done.Result.RowCount != 0 {
		t.Fatalf("first job %+v", done.Result)
	}
}

func fixInvalidValues(t *testing.T, f *fixing) {
	path := "/v1/jobs/" + f.firstID
	var vals invalidValues
	f.k.do("GET", path+"/invalid-values?field=active", f.key, nil, 200, "").JSON(t, &vals)
	var got []string
	for _, v := range vals.Data {
		got = append(got, fmt.Sprintf("%s=%d/%s", v.Value, v.Count, v.Code))
	}
	if strings.Join(got, " ") != "ja=2/invalid_boolean JA=1/invalid_boolean Nein=1/invalid_boolean nein=1/invalid_boolean vielleicht=1/invalid_boolean" ||
		vals.Field != "active" || vals.DistinctCount != 5 || vals.Capped || vals.NextCursor != nil || vals.Data[0].Object != "invalid_value" {
		t.Fatalf("active: %v %+v", got, vals)
	}
	// Pages, by cursor.
	f.k.do("GET", path+"/invalid-values?field=active&limit=2", f.key, nil, 200, "").JSON(t, &vals)
	if len(vals.Data) != 2 || vals.NextCursor == nil {
		t.Fatalf("page 1 %+v", vals)
	}
	cursor := *vals.NextCursor
	vals = invalidValues{}
	f.k.do("GET", path+"/invalid-values?field=active&limit=2&cursor="+url.QueryEscape(cursor), f.key, nil, 200, "").JSON(t, &vals)
	if len(vals.Data) != 2 || vals.Data[0].Value != "Nein" || vals.NextCursor == nil {
		t.Fatalf("page 2 %+v", vals)
	}
	f.k.do("GET", path+"/invalid-values?field=joined&cursor="+url.QueryEscape(cursor), f.key, nil, 400, "invalid_cursor")
	f.k.do("GET", path+"/invalid-values?field=colour", f.key, nil, 400, "invalid_request")
	f.k.do("GET", path+"/invalid-values", f.key, nil, 400, "invalid_request")
	vals = invalidValues{}
	f.k.do("GET", path+"/invalid-values?field=joined", f.key, nil, 200, "").JSON(t, &vals)
	if len(vals.Data) != 1 || vals.Data[0].Value != "1. März 2024" || vals.Data[0].Code != "invalid_date" {
		t.Fatalf("joined %+v", vals)
	}
}

// fixRerun: the same file, no upload; value_map, case-insensitive, and the
// day-first order the German dates need; an Idempotency-Key replays it.
func fixRerun(t *testing.T, f *fixing) {
	path := "/v1/jobs/" + f.firstID
	body := map[string]any{"options": map[string]any{
		"value_map":                  map[string]any{"active": map[string]string{"ja": "true", "nein": "false"}, "joined": map[string]string{"1. März 2024": "2024-03-01"}},
		"value_map_case_insensitive": true, "date_order": "DMY"}}
	f.k.do("POST", path+"/rerun", f.key, map[string]any{"options": map[string]any{"colour": 1}}, 400, "invalid_request")
	f.k.do("POST", path+"/rerun", f.key, map[string]any{"options": map[string]any{"value_map": map[string]any{"colour": map[string]string{"x": "y"}}}}, 400, "invalid_request")
	f.k.do("POST", path+"/rerun", f.key, map[string]any{"mapping": map[string]any{"Nope": "name"}}, 422, "invalid_mapping")
	res := f.k.do("POST", path+"/rerun", f.key, body, 202, "", "Idempotency-Key", "fix-1")
	var rerun map[string]any
	res.JSON(t, &rerun)
	f.rerunID = rerun["id"].(string)
	src := rerun["source"].(map[string]any)
	if res.Header.Get("Location") != "/v1/jobs/"+f.rerunID || f.rerunID == f.firstID || src["rerun_of"] != f.firstID || rerun["name"] != "members" || rerun["status"] != "queued" {
		t.Fatalf("rerun %s", res.Body)
	}
	opts := rerun["options"].(map[string]any)
	if opts["date_order"] != "DMY" || opts["review"] != false || opts["mapping"].(map[string]any)["Aktiv"] != "active" || opts["mapping"].(map[string]any)["Name"] != "name" {
		t.Fatalf("rerun options %v", opts)
	}
	again := f.k.do("POST", path+"/rerun", f.key, body, 202, "", "Idempotency-Key", "fix-1")
	if again.Body != res.Body || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %s", again.Body)
	}
	f.k.do("POST", path+"/rerun", f.key, map[string]any{}, 409, "idempotency_key_reused", "Idempotency-Key", "fix-1")
}

// fixRerunRows: the original can go, the rerun has its own copy of the
// file, and it reads every row but the one value no map fixes.
func fixRerunRows(t *testing.T, f *fixing) {
	f.k.do("DELETE", "/v1/jobs/"+f.firstID, f.key, nil, 204, "")
	fixed := waitJob(t, f.app, f.key, f.rerunID)
	if fixed.Status != "succeeded" || fixed.Result.RowCount != 5 || fixed.Result.RejectedCount != 1 {
		t.Fatalf("rerun %+v %+v", fixed, fixed.Error)
	}
	rows := f.k.do("GET", "/v1/jobs/"+f.rerunID+"/rows.csv", f.key, nil, 200, "").Body
	if rows != "name,active,joined\nAnna,true,2024-02-01\nBernd,false,2024-04-03\nClara,true,2024-06-05\nEmil,true,2024-03-01\nFrieda,false,2024-10-09\n" {
		t.Fatalf("rows %q", rows)
	}
	var list struct{ Data []jobView }
	f.k.do("GET", "/v1/jobs", f.key, nil, 200, "").JSON(t, &list)
	if len(list.Data) != 1 {
		t.Fatalf("jobs %+v: the replay made another", list.Data)
	}
}

func fixRerunOfRerun(t *testing.T, f *fixing) {
	var second map[string]any
	f.k.do("POST", "/v1/jobs/"+f.rerunID+"/rerun", f.key, nil, 202, "").JSON(t, &second)
	if o := second["options"].(map[string]any); o["value_map_case_insensitive"] != true || second["source"].(map[string]any)["rerun_of"] != f.rerunID {
		t.Fatalf("second rerun %v", second)
	}
	if j := waitJob(t, f.app, f.key, second["id"].(string)); j.Result.RowCount != 5 {
		t.Fatalf("second rerun %+v", j.Result)
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
	deadline := testtime.Deadline(15 * time.Second)
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
			c := &connectReview{app: app, k: newChecked(t, app), key: apptest.Caller{Key: app.Key(app.Org("Acme", identity.Connect))}}
			script(t, c,
				scriptStep[*connectReview]{"a_job_over_two_files_awaits_review", connectReviewAwaits},
				scriptStep[*connectReview]{"refusals_while_it_awaits", connectReviewRefusals},
				scriptStep[*connectReview]{"one_header_names_a_column_in_each_file", connectReviewConfirm},
				scriptStep[*connectReview]{"invalid_values_and_a_rerun", connectReviewRerun},
				scriptStep[*connectReview]{"entitlements_and_the_other_product", connectReviewEntitlements},
			)
		})
	}
}

// connectReview is the state of the connect review script.
type connectReview struct {
	app    *apptest.App
	k      *checked
	key    apptest.Caller
	f1, f2 fileView
	jobID  string
	path   string // the job's, under /v1/connect/jobs
}

func connectReviewAwaits(t *testing.T, c *connectReview) {
	c.k.send(uploadTo(t, c.app, "/v1/connect/files", "a.csv", "Pos,Mail\n1,a@x.io\n2,ja\n", nil), c.key, 201, "").JSON(t, &c.f1)
	c.k.send(uploadTo(t, c.app, "/v1/connect/files", "b.csv", "Pos,E-mail\n3,c@x.io\n", nil), c.key, 201, "").JSON(t, &c.f2)
	var j jobView
	c.k.do("POST", "/v1/connect/jobs", c.key, map[string]any{"file_ids": []string{c.f1.ID, c.f2.ID}, "schema": json.RawMessage(peopleSchema),
		"options": map[string]any{"review": true}}, 202, "").JSON(t, &j)
	c.jobID, c.path = j.ID, "/v1/connect/jobs/"+j.ID
	waitStatus(t, c.app, c.key, c.path, "awaiting_review")
	var rev reviewView
	c.k.do("GET", c.path+"/review", c.key, nil, 200, "").JSON(t, &rev)
	if got := rev.columns(); got != "Pos→- Mail→email/synonym Pos→- E-mail→email/normalized" || *rev.Columns[0].SourceFile != c.f1.ID || *rev.Columns[3].SourceFile != c.f2.ID {
		t.Fatalf("columns %s", got)
	}
}

func connectReviewRefusals(_ *testing.T, c *connectReview) {
	c.k.do("POST", c.path+"/confirm", c.key, nil, 422, "required_field_unmapped")
	c.k.do("GET", c.path+"/invalid-values?field=email", c.key, nil, 409, "job_not_finished")
	c.k.do("GET", c.path+"/invalid-values?field=colour", c.key, nil, 400, "invalid_request")
	c.k.do("POST", c.path+"/rerun", c.key, nil, 409, "job_not_finished")
	c.k.do("PATCH", c.path+"/mapping", c.key, map[string]any{}, 400, "invalid_request")
	c.k.do("PATCH", c.path+"/mapping", c.key, map[string]any{"mapping": map[string]any{"Nope": "id"}}, 422, "invalid_mapping")
	for method, p := range map[string]string{"PATCH": c.path + "/mapping", "POST": c.path + "/rerun"} {
		req, _ := http.NewRequest(method, c.app.URL+p, strings.NewReader("x"))
		req.Header.Set("Content-Type", "text/plain")
		c.k.send(req, c.key, 415, "unsupported_media_type")
	}
}

func connectReviewConfirm(t *testing.T, c *connectReview) {
	var rev reviewView
	c.k.do("PATCH", c.path+"/mapping", c.key, map[string]any{"mapping": map[string]any{"Pos": "id", "Mail": "email"}}, 200, "").JSON(t, &rev)
	if got := rev.columns(); got != "Pos→id/explicit Mail→email/explicit Pos→id/explicit E-mail→email/normalized" || rev.counts() != "email/invalid_email=1 joined/unmapped_field=2" {
		t.Fatalf("columns %s counts %s", got, rev.counts())
	}
	res := c.k.do("POST", c.path+"/confirm", c.key, nil, 202, "", "Idempotency-Key", "c-1")
	if res.Header.Get("Location") != c.path {
		t.Fatalf("Location %q", res.Header.Get("Location"))
	}
	again := c.k.do("POST", c.path+"/confirm", c.key, nil, 202, "", "Idempotency-Key", "c-1")
	if again.Body != res.Body || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("confirm replay %s", again.Body)
	}
	c.k.do("POST", c.path+"/confirm", c.key, nil, 409, "job_not_awaiting_review")
	c.k.do("PATCH", c.path+"/mapping", c.key, map[string]any{"mapping": map[string]any{}}, 409, "job_not_awaiting_review")
	done := waitStatus(t, c.app, c.key, c.path, "succeeded")
	if r := done["result"].(map[string]any); r["row_count"] != 2.0 {
		t.Fatalf("connect job %v", done)
	}
}

// connectReviewRerun: the invalid values, and a rerun with Mail ignored
// (file a's rows keep no email and stay valid); a deleted library file
// cannot be read again.
func connectReviewRerun(t *testing.T, c *connectReview) {
	var vals struct{ Data []struct{ Value string } }
	c.k.do("GET", c.path+"/invalid-values?field=email", c.key, nil, 200, "").JSON(t, &vals)
	if len(vals.Data) != 1 || vals.Data[0].Value != "ja" {
		t.Fatalf("invalid values %+v", vals)
	}
	c.k.do("POST", c.path+"/rerun", c.key, map[string]any{"options": map[string]any{"colour": 1}}, 400, "invalid_request")
	var rerun map[string]any
	res := c.k.do("POST", c.path+"/rerun", c.key, map[string]any{"mapping": map[string]any{"Mail": nil}}, 202, "")
	res.JSON(t, &rerun)
	if res.Header.Get("Location") != "/v1/connect/jobs/"+rerun["id"].(string) || rerun["source"].(map[string]any)["type"] != "connect" {
		t.Fatalf("connect rerun %s", res.Body)
	}
	if r := waitStatus(t, c.app, c.key, "/v1/connect/jobs/"+rerun["id"].(string), "succeeded")["result"].(map[string]any); r["row_count"] != 3.0 {
		t.Fatalf("connect rerun %v", r)
	}
	c.k.do("DELETE", "/v1/connect/files/"+c.f2.ID, c.key, nil, 204, "")
	c.k.do("POST", c.path+"/rerun", c.key, nil, 422, "file_not_found")
}

// connectReviewEntitlements: no normalize, no /v1/jobs; no connect, no
// /v1/connect/jobs; an upload job is not a connect job.
func connectReviewEntitlements(t *testing.T, c *connectReview) {
	bare := apptest.Caller{Key: c.app.Key(c.app.Org("Bare"))}
	for base, who := range map[string]apptest.Caller{"/v1/jobs/" + c.jobID: c.key, c.path: bare} {
		c.k.do("GET", base+"/review", who, nil, 403, "forbidden_entitlement_missing")
		c.k.do("PATCH", base+"/mapping", who, map[string]any{"mapping": map[string]any{}}, 403, "forbidden_entitlement_missing")
		c.k.do("POST", base+"/confirm", who, nil, 403, "forbidden_entitlement_missing")
		c.k.do("GET", base+"/invalid-values?field=id", who, nil, 403, "forbidden_entitlement_missing")
		c.k.do("POST", base+"/rerun", who, nil, 403, "forbidden_entitlement_missing")
	}
	both := apptest.Caller{Key: c.app.Key(c.app.Org("Both", identity.Normalize, identity.Connect))}
	var up jobView
	c.k.send(upload(t, c.app, "p.csv", peopleCSV, map[string]string{"schema": peopleSchema}), both, 202, "").JSON(t, &up)
	for _, p := range []string{"/review", "/invalid-values?field=id"} {
		c.k.do("GET", "/v1/connect/jobs/"+up.ID+p, both, nil, 404, "not_found")
	}
	c.k.do("POST", "/v1/connect/jobs/"+up.ID+"/rerun", both, nil, 404, "not_found")
	c.k.do("POST", "/v1/connect/jobs/"+up.ID+"/confirm", both, nil, 404, "not_found")
	c.k.do("PATCH", "/v1/connect/jobs/"+up.ID+"/mapping", both, map[string]any{"mapping": map[string]any{}}, 404, "not_found")
}
