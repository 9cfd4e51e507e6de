package httpapi_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

type recordsView struct {
	Object string `json:"object"`
	Data   []struct {
		Object     string             `json:"object"`
		Row        int64              `json:"row"`
		SourceFile *string            `json:"source_file"`
		Valid      bool               `json:"valid"`
		Values     map[string]any     `json:"values"`
		Cells      map[string]*string `json:"cells"`
		Edited     []string           `json:"edited"`
		Issues     []struct {
			Field *string `json:"field"`
			Code  string  `json:"code"`
		} `json:"issues"`
	} `json:"data"`
	NextCursor *string  `json:"next_cursor"`
	Fields     []string `json:"fields"`
	Total      int64    `json:"total"`
}

// rows says each record as "row:valid", "!" marking an edited one.
func (r recordsView) rows() string {
	var out []string
	for _, d := range r.Data {
		s := fmt.Sprintf("%d:%v", d.Row, d.Valid)
		if len(d.Edited) > 0 {
			s += "!"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// TestRecords_everyRecord: a succeeded job's records are every row of its
// file as it comes out now, valid and rejected, its edits applied;
// filtered by status, issue and search, sorted by a field's typed value,
// paged by cursor or by offset, kept to the organization; on both
// databases.
func TestRecords_everyRecord(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			org := app.Org("Acme", identity.Normalize)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(org)}
			other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}
			var created jobView
			k.send(upload(t, app, "people.csv", editsCSV, map[string]string{"schema": editsSchema}), key, 202, "").JSON(t, &created)
			if done := waitJob(t, app, key, created.ID); done.Status != "succeeded" {
				t.Fatalf("job %s", done.Status)
			}
			r := recordsReader{t: t, k: k, key: key, path: "/v1/jobs/" + created.ID + "/records"}
			recordsFiltered(r)
			recordsPaged(r)
			if v := indexVersions(t, app, org.ID, created.ID); len(v) != 1 {
				t.Fatalf("records indexes %v, want one", v)
			}
			// An edit shows at once, in every list.
			k.do("POST", "/v1/jobs/"+created.ID+"/edits", key, `{"edits":[{"row":2,"field":"email","value":"bob@x.io"}]}`, 200, "")
			if got := r.get("").rows(); got != "1:true 2:true! 3:true 4:false 5:false 6:false" {
				t.Fatalf("after an edit %q", got)
			}
			if got := r.get("?status=rejected").rows(); got != "4:false 5:false 6:false" {
				t.Fatalf("rejected after an edit %q", got)
			}
			if got := r.get("?q=bob@x.io").rows(); got != "2:true!" {
				t.Fatalf("search after an edit %q", got)
			}
			if v := indexVersions(t, app, org.ID, created.ID); len(v) != 1 { // the index before the edit is deleted
				t.Fatalf("records indexes after an edit %v, want one", v)
			}
			recordsRefused(r, other)
			var waiting jobView
			k.send(upload(t, app, "people.csv", editsCSV, map[string]string{"schema": editsSchema, "options": `{"review":true}`}), key, 202, "").JSON(t, &waiting)
			waitStatus(t, app, key, "/v1/jobs/"+waiting.ID, "awaiting_review")
			k.do("GET", "/v1/jobs/"+waiting.ID+"/records", key, nil, 409, "job_not_finished")
		})
	}
}

// indexVersions are the versions of a job's records index in the app's
// file store.
func indexVersions(t *testing.T, app *apptest.App, orgID, jobID string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(strings.TrimPrefix(strings.SplitN(app.Config.BlobURL, "?", 2)[0], "file://"), "org", orgID, "jobs", jobID, "records"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

type recordsReader struct {
	t    *testing.T
	k    *checked
	key  apptest.Caller
	path string
}

func (r recordsReader) get(query string) recordsView {
	r.t.Helper()
	var v recordsView
	r.k.do("GET", r.path+query, r.key, nil, 200, "").JSON(r.t, &v)
	return v
}

func recordsFiltered(r recordsReader) {
	t := r.t
	all := r.get("")
	if all.rows() != "1:true 2:false 3:true 4:false 5:false 6:false" || all.Total != 6 || all.NextCursor != nil || all.Object != "list" ||
		strings.Join(all.Fields, ",") != "id,email,active,joined,note" {
		t.Fatalf("all records %q %+v", all.rows(), all)
	}
	r2 := all.Data[1]
	if r2.Object != "record" || *r2.Cells["email"] != "bob@x" || r2.Values["email"] != nil || r2.Values["id"] != float64(2) || len(r2.Issues) != 1 ||
		r2.Issues[0].Code != "invalid_email" || all.Data[0].Values["email"] != "ann@x.io" {
		t.Fatalf("record 2 %+v", r2)
	}
	if r6 := all.Data[5]; len(r6.Issues) != 1 || r6.Issues[0].Code != "not_unique" { // only the run finds a repeat
		t.Fatalf("record 6 %+v", r6)
	}
	for query, want := range map[string]string{
		"?status=rejected":                    "2:false 4:false 5:false 6:false",
		"?status=valid":                       "1:true 3:true",
		"?field=email&code=invalid_email":     "2:false",
		"?code=not_unique":                    "6:false",
		"?field=joined":                       "5:false",
		"?q=X.IO":                             "1:true 3:true 4:false 5:false 6:false",
		"?q=vielleicht&status=rejected":       "4:false",
		"?q=email":                            "", // a field's name is no cell's text
		"?sort=joined":                        "1:true 2:false 3:true 4:false 6:false 5:false",
		"?sort=joined&order=desc":             "6:false 4:false 3:true 2:false 1:true 5:false",
		"?sort=email&order=desc&status=valid": "3:true 1:true",
		"?limit=2&offset=4":                   "5:false 6:false",
		"?offset=100":                         "",
	} {
		if got := r.get(query).rows(); got != want {
			t.Errorf("records%s = %q, want %q", query, got, want)
		}
	}
}

// recordsPaged: pages by cursor, and a position of a filtered, sorted
// list by offset.
func recordsPaged(r recordsReader) {
	t := r.t
	page := r.get("?limit=4")
	if page.rows() != "1:true 2:false 3:true 4:false" || page.NextCursor == nil || page.Total != 6 {
		t.Fatalf("page 1 %q", page.rows())
	}
	page = r.get("?limit=4&cursor=" + url.QueryEscape(*page.NextCursor))
	if page.rows() != "5:false 6:false" || page.NextCursor != nil {
		t.Fatalf("page 2 %q", page.rows())
	}
	if p := r.get("?status=rejected&sort=joined&limit=1&offset=2"); p.rows() != "6:false" || p.Total != 4 || p.NextCursor == nil {
		t.Fatalf("rejected by joined at 2 %q %d", p.rows(), p.Total)
	}
}

// recordsRefused: bad queries are 400 at their parameter; another
// organization's job is 404, whatever the query.
func recordsRefused(r recordsReader, other apptest.Caller) {
	t := r.t
	for _, c := range []struct{ query, code, field string }{
		{"?limit=501", "invalid_request", "limit"},
		{"?limit=0", "invalid_request", "limit"},
		{"?status=bad", "invalid_request", "status"},
		{"?sort=nope", "invalid_request", "sort"},
		{"?field=nope", "invalid_request", "field"},
		{"?order=up", "invalid_request", "order"},
		{"?offset=-1", "invalid_request", "offset"},
		{"?offset=x", "invalid_request", "offset"},
		{"?q=" + strings.Repeat("a", 201), "invalid_request", "q"},
		{"?offset=2&cursor=" + url.QueryEscape(*r.get("?limit=1").NextCursor), "invalid_request", "cursor"},
		{"?cursor=bm9wZQ", "invalid_cursor", ""},
	} {
		res := r.k.do("GET", r.path+c.query, r.key, nil, 400, c.code)
		if c.field != "" && !strings.Contains(res.Body, `"field":"`+c.field+`"`) {
			t.Errorf("%s: %s, want a problem at %s", c.query, res.Body, c.field)
		}
	}
	r.k.do("GET", r.path, other, nil, 404, "not_found")
	r.k.do("GET", r.path+"?limit=501", other, nil, 404, "not_found")
	r.k.do("GET", "/v1/jobs/job_missing/records", r.key, nil, 404, "not_found")
}
