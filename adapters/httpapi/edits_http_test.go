package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// editsCSV has rows to fix one cell at a time: a typo in an e-mail (row
// 2), a word for a boolean (row 4), a day-first date the run decided from
// the others (row 5), a duplicate id (row 6).
const editsCSV = "ID,E-mail,Active,Joined\n" +
	"1,ann@x.io,yes,31/01/2024\n" +
	"2,bob@x,yes,28/02/2024\n" +
	"3,cy@x.io,no,15/03/2024\n" +
	"4,dee@x.io,vielleicht,16/04/2024\n" +
	"5,eve@x.io,yes,2024-13-45\n" +
	"1,fay@x.io,no,17/05/2024\n"

const editsSchema = `{"fields":[
	{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email","constraints":{"required":true}},
	{"name":"active","type":"boolean"},
	{"name":"joined","type":"date"},
	{"name":"note","type":"string"}]}`

// TestEdits_fixCellsAndRerun: a succeeded job's rejected rows are listed
// as the file has them; edits of single cells are checked at once, stored
// once a cell, listed, kept to the organization, and a rerun applies them
// (with its own) before coercion, on both databases.
func TestEdits_fixCellsAndRerun(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			org := app.Org("Acme", identity.Normalize)
			e := &editing{app: app, k: newChecked(t, app), key: apptest.Caller{Key: app.Key(org)},
				admin: app.Login(app.User(org, identity.Admin, false).Email), other: apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}}
			script(t, e,
				scriptStep[*editing]{"a_job_with_rejected_rows", editsFirstJob},
				scriptStep[*editing]{"its_rejected_rows_in_pages", editsRejectedRows},
				scriptStep[*editing]{"an_edit_is_checked_at_once_and_stored_once_a_cell", editsAdd},
				scriptStep[*editing]{"bad_edits_store_nothing", editsRefused},
				scriptStep[*editing]{"edits_are_the_organizations_and_need_csrf_on_cookies", editsAccess},
				scriptStep[*editing]{"the_edits_in_pages", editsList},
				scriptStep[*editing]{"the_rejected_rows_show_the_edits", editsRejectedAfter},
				scriptStep[*editing]{"a_rerun_applies_the_edits_and_its_own", editsRerun},
			)
		})
	}
}

type editing struct {
	app               *apptest.App
	k                 *checked
	key, admin, other apptest.Caller
	firstID, rerunID  string
}

type rejectedRowsView struct {
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
			Value *string `json:"value"`
		} `json:"issues"`
	} `json:"data"`
	NextCursor    *string  `json:"next_cursor"`
	Fields        []string `json:"fields"`
	RejectedCount int64    `json:"rejected_count"`
}

// rows says each row as "row:valid:field=code,…".
func (r rejectedRowsView) rows() string {
	var out []string
	for _, d := range r.Data {
		var codes []string
		for _, is := range d.Issues {
			f := "-"
			if is.Field != nil {
				f = *is.Field
			}
			codes = append(codes, f+"="+is.Code)
		}
		out = append(out, fmt.Sprintf("%d:%v:%s", d.Row, d.Valid, strings.Join(codes, ",")))
	}
	return strings.Join(out, " ")
}

type editsAddedView struct {
	Object    string `json:"object"`
	JobID     string `json:"job_id"`
	EditCount int    `json:"edit_count"`
	Data      []struct {
		Object     string  `json:"object"`
		Row        int64   `json:"row"`
		SourceFile *string `json:"source_file"`
		Field      string  `json:"field"`
		Value      *string `json:"value"`
		UpdatedAt  string  `json:"updated_at"`
		RowValid   bool    `json:"row_valid"`
		RowIssues  []struct {
			Field *string `json:"field"`
			Code  string  `json:"code"`
			Value *string `json:"value"`
		} `json:"row_issues"`
	} `json:"data"`
}

type editListView struct {
	Object string `json:"object"`
	Data   []struct {
		Object string  `json:"object"`
		Row    int64   `json:"row"`
		Field  string  `json:"field"`
		Value  *string `json:"value"`
	} `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

func (l editListView) cells() []string {
	out := make([]string, len(l.Data))
	for i, d := range l.Data {
		v := "null"
		if d.Value != nil {
			v = *d.Value
		}
		out[i] = fmt.Sprintf("%d/%s=%s", d.Row, d.Field, v)
	}
	return out
}

func editsFirstJob(t *testing.T, e *editing) {
	var created jobView
	e.k.send(upload(t, e.app, "people.csv", editsCSV, map[string]string{"schema": editsSchema}), e.key, 202, "").JSON(t, &created)
	e.firstID = created.ID
	if done := waitJob(t, e.app, e.key, created.ID); done.Status != "succeeded" || done.Result.RowCount != 2 || done.Result.RejectedCount != 4 {
		t.Fatalf("first job %s %+v", done.Status, done.Result)
	}
}

func editsRejectedRows(t *testing.T, e *editing) {
	path := "/v1/jobs/" + e.firstID + "/rejected-rows"
	var all rejectedRowsView
	e.k.do("GET", path, e.key, nil, 200, "").JSON(t, &all)
	if got := all.rows(); got != "2:false:email=invalid_email 4:false:active=invalid_boolean 5:false:joined=invalid_date 6:false:id=not_unique" {
		t.Fatalf("rejected rows %q", got)
	}
	if strings.Join(all.Fields, ",") != "id,email,active,joined,note" || all.RejectedCount != 4 || all.NextCursor != nil || all.Data[0].Object != "rejected_row" {
		t.Fatalf("rejected rows %+v", all)
	}
	r2 := all.Data[0]
	if *r2.Cells["email"] != "bob@x" || *r2.Cells["id"] != "2" || r2.Values["email"] != nil || r2.Values["id"] != float64(2) || r2.Values["joined"] != "2024-02-28" ||
		len(r2.Edited) != 0 {
		t.Fatalf("row 2 %+v", r2)
	}
	// Pages, by cursor; another job's cursor is refused.
	var page rejectedRowsView
	e.k.do("GET", path+"?limit=3", e.key, nil, 200, "").JSON(t, &page)
	if page.rows() != "2:false:email=invalid_email 4:false:active=invalid_boolean 5:false:joined=invalid_date" || page.NextCursor == nil {
		t.Fatalf("page 1 %q", page.rows())
	}
	cursor := *page.NextCursor
	page = rejectedRowsView{}
	e.k.do("GET", path+"?limit=3&cursor="+url.QueryEscape(cursor), e.key, nil, 200, "").JSON(t, &page)
	if page.rows() != "6:false:id=not_unique" || page.NextCursor != nil {
		t.Fatalf("page 2 %q", page.rows())
	}
	e.k.do("GET", "/v1/jobs/job_missing/rejected-rows", e.key, nil, 404, "not_found")
	e.k.do("GET", path, e.other, nil, 404, "not_found")
}

func editsAdd(t *testing.T, e *editing) {
	path := "/v1/jobs/" + e.firstID + "/edits"
	var added editsAddedView
	e.k.do("POST", path, e.key, `{"edits":[
		{"row":2,"source_file":null,"field":"email","value":"Bob@X.io"},
		{"row":4,"field":"active","value":"maybe"},
		{"row":4,"field":"active","value":"ja"},
		{"row":5,"field":"joined","value":"02/03/2024"},
		{"row":1,"field":"note","value":"checked"}]}`, 200, "").JSON(t, &added)
	if added.Object != "job_edits" || added.JobID != e.firstID || added.EditCount != 4 || len(added.Data) != 4 {
		t.Fatalf("added %+v", added)
	}
	got := map[int64]string{}
	for _, d := range added.Data {
		var codes []string
		for _, is := range d.RowIssues {
			codes = append(codes, is.Code+":"+*is.Value)
		}
		got[d.Row] = fmt.Sprintf("%s=%s valid=%v %s", d.Field, *d.Value, d.RowValid, strings.Join(codes, ","))
		if d.Object != "job_edit" || d.SourceFile != nil || d.UpdatedAt == "" {
			t.Fatalf("edit %+v", d)
		}
	}
	want := map[int64]string{
		1: "note=checked valid=true ",
		2: "email=Bob@X.io valid=true ",
		4: "active=ja valid=false invalid_boolean:ja", // the last value of the cell wins; value_map does not apply to an edit
		5: "joined=02/03/2024 valid=true ",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("checks\n%v\nwant\n%v", got, want)
	}
	// The same edit again is the same one edit; null clears a cell.
	added = editsAddedView{}
	e.k.do("POST", path, e.key, map[string]any{"edits": []map[string]any{{"row": 4, "field": "active", "value": nil}, {"row": 1, "field": "note", "value": "checked"}}},
		200, "").JSON(t, &added)
	if added.EditCount != 4 || added.Data[0].Row != 1 || added.Data[1].Value != nil || !added.Data[1].RowValid {
		t.Fatalf("again %+v", added)
	}
}

func editsRefused(t *testing.T, e *editing) {
	path := "/v1/jobs/" + e.firstID + "/edits"
	for _, c := range []struct{ body, field string }{
		{`{"edits":[{"row":99,"field":"email","value":"x@y.io"}]}`, "edits[0].row"},
		{`{"edits":[{"row":1,"field":"email","value":"x@y.io"},{"row":1,"field":"phone","value":"1"}]}`, "edits[1].field"},
		{`{"edits":[{"row":0,"field":"email","value":"x@y.io"}]}`, "edits[0].row"},
		{`{"edits":[{"row":1,"source_file":"file_x","field":"email","value":"x@y.io"}]}`, "edits[0].source_file"},
		{`{"edits":[{"row":1,"field":"email"}]}`, "edits[0].value"},
		{`{"edits":[{"row":1,"field":"email","value":3}]}`, "edits[0].value"},
		{`{"edits":[]}`, "edits"},
	} {
		res := e.k.do("POST", path, e.key, c.body, 400, "invalid_request")
		if !strings.Contains(res.Body, `"field":"`+c.field+`"`) {
			t.Errorf("%s: %s, want a problem at %s", c.body, res.Body, c.field)
		}
	}
	var list editListView
	e.k.do("GET", path, e.key, nil, 200, "").JSON(t, &list)
	if len(list.Data) != 4 {
		t.Fatalf("refused edits stored: %v", list.cells())
	}
	// A job that has not run is no job to edit.
	var waiting jobView
	e.k.send(upload(t, e.app, "people.csv", editsCSV, map[string]string{"schema": editsSchema, "options": `{"review":true}`}), e.key, 202, "").JSON(t, &waiting)
	waitStatus(t, e.app, e.key, "/v1/jobs/"+waiting.ID, "awaiting_review")
	e.k.do("POST", "/v1/jobs/"+waiting.ID+"/edits", e.key, `{"edits":[{"row":1,"field":"email","value":"x@y.io"}]}`, 409, "job_not_finished")
	e.k.do("GET", "/v1/jobs/"+waiting.ID+"/rejected-rows", e.key, nil, 409, "job_not_finished")
}

func editsAccess(t *testing.T, e *editing) {
	path := "/v1/jobs/" + e.firstID + "/edits"
	body := `{"edits":[{"row":2,"field":"email","value":"bob@x.io"}]}`
	e.k.do("POST", path, e.other, body, 404, "not_found")
	e.k.do("GET", path, e.other, nil, 404, "not_found")
	e.k.do("POST", "/v1/jobs/job_missing/edits", e.key, `{"edits":[{"row":1,"field":"x"}]}`, 404, "not_found")
	e.k.do("POST", path, apptest.Caller{Session: e.admin.Session}, body, 403, "csrf_token_invalid")
	var added editsAddedView
	e.k.do("POST", path, e.admin, body, 200, "").JSON(t, &added)
	if added.EditCount != 4 || *added.Data[0].Value != "bob@x.io" || !added.Data[0].RowValid {
		t.Fatalf("with the session %+v", added)
	}
}

func editsList(t *testing.T, e *editing) {
	path := "/v1/jobs/" + e.firstID + "/edits"
	var list editListView
	e.k.do("GET", path+"?limit=3", e.key, nil, 200, "").JSON(t, &list)
	if strings.Join(list.cells(), " ") != "1/note=checked 2/email=bob@x.io 4/active=null" || list.NextCursor == nil || list.Data[0].Object != "job_edit" {
		t.Fatalf("page 1 %v %+v", list.cells(), list)
	}
	cursor := *list.NextCursor
	list = editListView{}
	e.k.do("GET", path+"?limit=3&cursor="+url.QueryEscape(cursor), e.key, nil, 200, "").JSON(t, &list)
	if strings.Join(list.cells(), " ") != "5/joined=02/03/2024" || list.NextCursor != nil {
		t.Fatalf("page 2 %v", list.cells())
	}
	e.k.do("GET", "/v1/jobs/job_other/edits?cursor="+url.QueryEscape(cursor), e.key, nil, 404, "not_found")
}

func editsRejectedAfter(t *testing.T, e *editing) {
	var all rejectedRowsView
	e.k.do("GET", "/v1/jobs/"+e.firstID+"/rejected-rows", e.key, nil, 200, "").JSON(t, &all)
	// Row 4's cleared boolean is valid; row 6 keeps its run's not_unique
	// until an edit changes its id.
	if got := all.rows(); got != "2:true: 4:true: 5:true: 6:false:id=not_unique" {
		t.Fatalf("rejected rows after the edits %q", got)
	}
	r5 := all.Data[2]
	if *r5.Cells["joined"] != "02/03/2024" || r5.Values["joined"] != "2024-03-02" || strings.Join(r5.Edited, ",") != "joined" || all.Data[1].Cells["active"] != nil {
		t.Fatalf("row 5 %+v (the run read dates day-first), row 4 %+v", r5, all.Data[1])
	}
}

func editsRerun(t *testing.T, e *editing) {
	var rerun jobView
	e.k.do("POST", "/v1/jobs/"+e.firstID+"/rerun", e.key, `{"edits":[{"row":6,"field":"id","value":"6"},{"row":1,"field":"note","value":null}]}`, 202, "").JSON(t, &rerun)
	e.rerunID = rerun.ID
	done := waitJob(t, e.app, e.key, rerun.ID)
	if done.Status != "succeeded" || done.Result.RowCount != 6 || done.Result.RejectedCount != 0 {
		t.Fatalf("rerun %s %+v", done.Status, done.Result)
	}
	var result struct {
		Result struct {
			EditsApplied int64 `json:"edits_applied"`
		} `json:"result"`
	}
	e.k.do("GET", "/v1/jobs/"+rerun.ID, e.key, nil, 200, "").JSON(t, &result)
	if result.Result.EditsApplied != 5 {
		t.Fatalf("edits_applied = %d, want 5", result.Result.EditsApplied)
	}
	var rows struct{ Data []map[string]any }
	e.k.do("GET", "/v1/jobs/"+rerun.ID+"/rows", e.key, nil, 200, "").JSON(t, &rows)
	var got []string
	for _, r := range rows.Data {
		got = append(got, fmt.Sprint(r["id"], " ", r["email"], " ", r["active"], " ", r["joined"], " ", r["note"]))
	}
	want := "1 ann@x.io true 2024-01-31 <nil>|2 bob@x.io true 2024-02-28 <nil>|3 cy@x.io false 2024-03-15 <nil>|4 dee@x.io <nil> 2024-04-16 <nil>|" +
		"5 eve@x.io true 2024-03-02 <nil>|6 fay@x.io false 2024-05-17 <nil>"
	if strings.Join(got, "|") != want {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	// The rerun holds its edits (the original's and its own): they are what changed its values.
	var list editListView
	e.k.do("GET", "/v1/jobs/"+rerun.ID+"/edits", e.key, nil, 200, "").JSON(t, &list)
	if strings.Join(list.cells(), " ") != "1/note=null 2/email=bob@x.io 4/active=null 5/joined=02/03/2024 6/id=6" {
		t.Fatalf("the rerun's edits %v", list.cells())
	}
	list = editListView{}
	e.k.do("GET", "/v1/jobs/"+e.firstID+"/edits", e.key, nil, 200, "").JSON(t, &list)
	if len(list.Data) != 4 {
		t.Fatalf("the original's edits changed: %v", list.cells())
	}
	e.k.do("POST", "/v1/jobs/"+e.firstID+"/rerun", e.key, `{"edits":[{"row":1,"field":"nope","value":"x"}]}`, 400, "invalid_request")
}

// TestEdits_connectJob: a connect job's edits name the file of their row,
// under /v1/connect/jobs/{id}/…, and its rerun applies each to its file.
func TestEdits_connectJob(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
			a := addFile(t, app, key, "a.csv", "ID,E-mail,Joined\n1,ann@x.io,31/01/2024\n2,bob@,01/02/2024\n")
			b := addFile(t, app, key, "b.csv", "ID,E-mail,Joined\n3,cy@,31/01/2024\n")
			j, _, _ := connectJob(t, app, key, a.ID, b.ID)
			path := "/v1/connect/jobs/" + j.ID
			var rejected rejectedRowsView
			k.do("GET", path+"/rejected-rows", key, nil, 200, "").JSON(t, &rejected)
			if len(rejected.Data) != 2 || *rejected.Data[0].SourceFile != a.ID || rejected.Data[0].Row != 2 || *rejected.Data[1].SourceFile != b.ID ||
				rejected.Data[1].Row != 1 {
				t.Fatalf("rejected rows %+v", rejected.Data)
			}
			var records recordsView
			k.do("GET", path+"/records?status=all", key, nil, 200, "").JSON(t, &records)
			if records.rows() != "1:true 2:false 1:false" || *records.Data[0].SourceFile != a.ID || *records.Data[2].SourceFile != b.ID {
				t.Fatalf("records %q", records.rows())
			}
			k.do("POST", path+"/edits", key, map[string]any{"edits": []map[string]any{{"row": 2, "field": "email", "value": "x@y.io"}}}, 400, "invalid_request")
			var added editsAddedView
			k.do("POST", path+"/edits", key, map[string]any{"edits": []map[string]any{
				{"row": 2, "source_file": a.ID, "field": "email", "value": "bob@x.io"},
				{"row": 1, "source_file": b.ID, "field": "email", "value": "cy@x.io"}}}, 200, "").JSON(t, &added)
			if added.EditCount != 2 || !added.Data[0].RowValid || !added.Data[1].RowValid || *added.Data[0].SourceFile != a.ID {
				t.Fatalf("added %+v", added)
			}
			var rerun jobView
			res := k.do("POST", path+"/rerun", key, nil, 202, "")
			res.JSON(t, &rerun)
			if res.Header.Get("Location") != "/v1/connect/jobs/"+rerun.ID {
				t.Fatalf("Location %q", res.Header.Get("Location"))
			}
			if done := waitJob(t, app, key, rerun.ID); done.Status != "succeeded" || done.Result.RowCount != 3 || done.Result.RejectedCount != 0 {
				t.Fatalf("rerun %s %+v", done.Status, done.Result)
			}
			var listed editListView
			k.do("GET", path+"/edits", key, nil, 200, "").JSON(t, &listed)
			if len(listed.Data) != 2 {
				t.Fatalf("the connect job's edits %v", listed.cells())
			}
			// A connect job awaiting its review has no cells to edit yet.
			res = k.do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{a.ID}, "schema": json.RawMessage(peopleSchema), "options": map[string]any{"review": true}}, 202, "")
			var waiting jobView
			res.JSON(t, &waiting)
			waitStatus(t, app, key, "/v1/jobs/"+waiting.ID, "awaiting_review")
			k.do("POST", "/v1/connect/jobs/"+waiting.ID+"/edits", key, `{"edits":[{"row":1,"source_file":"`+a.ID+`","field":"email","value":"x@y.io"}]}`, 409, "job_not_finished")
			k.do("GET", "/v1/connect/jobs/"+waiting.ID+"/rejected-rows", key, nil, 409, "job_not_finished")
			k.do("GET", "/v1/connect/jobs/"+waiting.ID+"/records", key, nil, 409, "job_not_finished")
			// An upload job is not served under /v1/connect/jobs.
			var up jobView
			k.send(upload(t, app, "people.csv", editsCSV, map[string]string{"schema": editsSchema}), key, 202, "").JSON(t, &up)
			waitJob(t, app, key, up.ID)
			k.do("GET", "/v1/connect/jobs/"+up.ID+"/edits", key, nil, 404, "not_found")
		})
	}
}
