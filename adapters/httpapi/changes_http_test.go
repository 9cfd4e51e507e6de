package httpapi_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

type replacementView struct {
	Object  string  `json:"object"`
	ID      *string `json:"id"`
	Field   string  `json:"field"`
	Status  string  `json:"status"`
	Matched int64   `json:"matched"`
}

type historyView struct {
	Data []struct {
		Step    int64  `json:"step"`
		Kind    string `json:"kind"`
		Cells   int64  `json:"cells"`
		Summary string `json:"summary"`
		Undone  bool   `json:"undone"`
	} `json:"data"`
	CanUndo bool `json:"can_undo"`
	CanRedo bool `json:"can_redo"`
}

// steps says each step as "step:kind", "~" marking an undone one.
func (h historyView) steps() string {
	var out []string
	for _, s := range h.Data {
		x := strconv.FormatInt(s.Step, 10) + ":" + s.Kind
		if s.Undone {
			x += "~"
		}
		out = append(out, x)
	}
	return strings.Join(out, " ")
}

// TestChanges_replaceUndoRedo: a replacement counts its matches (a
// preview stores nothing), changes the records at once, and is a step of
// the job's history beside an edit request; undo and redo walk the steps
// (409 at either end), a new step discards the undone ones, and a rerun
// applies what is in force; refused for bad requests, unfinished jobs and
// another organization (404); on both databases.
func TestChanges_replaceUndoRedo(t *testing.T) {
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
			c := changesCase{t: t, k: k, app: app, key: key, base: "/v1/jobs/" + created.ID}
			c.r = recordsReader{t: t, k: k, key: key, path: c.base + "/records"}
			c.replaceAndEdit()
			c.undoRedo()
			c.newStepAndRerun()
			changesRefused(t, k, c.base, key, other)
			var waiting jobView
			k.send(upload(t, app, "people.csv", editsCSV, map[string]string{"schema": editsSchema, "options": `{"review":true}`}), key, 202, "").JSON(t, &waiting)
			waitStatus(t, app, key, "/v1/jobs/"+waiting.ID, "awaiting_review")
			k.do("POST", "/v1/jobs/"+waiting.ID+"/replacements", key, `{"field":"email","find":"a","replace":"b"}`, 409, "job_not_finished")
			k.do("POST", "/v1/jobs/"+waiting.ID+"/undo", key, nil, 409, "job_not_finished")
		})
	}
}

// changesCase is a finished job whose changes a test walks through.
type changesCase struct {
	t    *testing.T
	k    *checked
	app  *apptest.App
	key  apptest.Caller
	base string
	r    recordsReader
}

func (c changesCase) history() historyView {
	c.t.Helper()
	var h historyView
	c.k.do("GET", c.base+"/history", c.key, nil, 200, "").JSON(c.t, &h)
	return h
}

type stepView struct {
	Object string `json:"object"`
	Step   int64  `json:"step"`
	Undone bool   `json:"undone"`
}

// replaceAndEdit: a preview counts and stores nothing; a regex
// replacement of the rejected rows fixes row 2 at once; an edit is the
// second step.
func (c changesCase) replaceAndEdit() {
	t := c.t
	var rep replacementView
	c.k.do("POST", c.base+"/replacements", c.key, `{"field":"email","find":"X.IO","replace":"example.com","match":"contains","preview":true}`, 200, "").JSON(t, &rep)
	if rep.Object != "replacement" || rep.ID != nil || rep.Matched != 5 || rep.Status != "all" {
		t.Fatalf("preview %+v, want 5 matched and no id", rep)
	}
	if h := c.history(); h.steps() != "" || h.CanUndo || h.CanRedo {
		t.Fatalf("history after a preview %q, want none", h.steps())
	}
	c.k.do("POST", c.base+"/replacements", c.key, `{"field":"email","find":"^(bob)@x$","replace":"$1@x.io","match":"regex","status":"rejected"}`, 200, "").JSON(t, &rep)
	if rep.ID == nil || !strings.HasPrefix(*rep.ID, "rpl_") || rep.Matched != 1 {
		t.Fatalf("replacement %+v, want an id and 1 matched", rep)
	}
	if got := c.r.get("").rows(); got != "1:true 2:true! 3:true 4:false 5:false 6:false" {
		t.Fatalf("records after a replacement %q", got)
	}
	if v := c.r.get("?q=bob@x.io"); v.rows() != "2:true!" || *v.Data[0].Cells["email"] != "bob@x.io" || v.Data[0].Edited[0] != "email" {
		t.Fatalf("the replaced cell %+v", v.Data)
	}
	c.k.do("POST", c.base+"/edits", c.key, `{"edits":[{"row":4,"field":"active","value":"yes"}]}`, 200, "")
	if h := c.history(); h.steps() != "1:replacement 2:edits" || !h.CanUndo || h.CanRedo || h.Data[0].Cells != 1 || h.Data[1].Summary != "1 cell edited" {
		t.Fatalf("history %+v", h)
	}
}

// undoRedo: undo walks back to the start (409 past it), redo applies
// step 1 again, and the records follow.
func (c changesCase) undoRedo() {
	t := c.t
	var step stepView
	c.k.do("POST", c.base+"/undo", c.key, nil, 200, "").JSON(t, &step)
	if step.Object != "history_step" || step.Step != 2 || !step.Undone {
		t.Fatalf("undo %+v, want step 2 undone", step)
	}
	if got := c.r.get("").rows(); got != "1:true 2:true! 3:true 4:false 5:false 6:false" {
		t.Fatalf("records after undoing the edit %q", got)
	}
	c.k.do("POST", c.base+"/undo", c.key, nil, 200, "")
	if got := c.r.get("").rows(); got != "1:true 2:false 3:true 4:false 5:false 6:false" {
		t.Fatalf("records after undoing both %q", got)
	}
	c.k.do("POST", c.base+"/undo", c.key, nil, 409, "nothing_to_undo")
	c.k.do("POST", c.base+"/redo", c.key, nil, 200, "").JSON(t, &step)
	if step.Step != 1 || step.Undone {
		t.Fatalf("redo %+v, want step 1 applied", step)
	}
	if h := c.history(); h.steps() != "1:replacement 2:edits~" || !h.CanRedo {
		t.Fatalf("history after a redo %q", h.steps())
	}
	if got := c.r.get("?status=rejected").rows(); got != "4:false 5:false 6:false" {
		t.Fatalf("rejected after the redo %q", got)
	}
}

// newStepAndRerun: a new step discards the undone edit; a rerun applies
// the replacements in force and keeps them as its history.
func (c changesCase) newStepAndRerun() {
	t := c.t
	c.k.do("POST", c.base+"/replacements", c.key, `{"field":"active","find":"vielleicht","replace":"no"}`, 200, "")
	if h := c.history(); h.steps() != "1:replacement 3:replacement" || h.CanRedo {
		t.Fatalf("history after a new step %q", h.steps())
	}
	c.k.do("POST", c.base+"/redo", c.key, nil, 409, "nothing_to_redo")
	if got := c.r.get("?status=rejected").rows(); got != "5:false 6:false" {
		t.Fatalf("rejected after two replacements %q", got)
	}
	var rerun jobView
	c.k.do("POST", c.base+"/rerun", c.key, nil, 202, "").JSON(t, &rerun)
	if done := waitJob(t, c.app, c.key, rerun.ID); done.Status != "succeeded" {
		t.Fatalf("rerun %s", done.Status)
	}
	if got := (recordsReader{t: t, k: c.k, key: c.key, path: "/v1/jobs/" + rerun.ID + "/records"}).get("?status=rejected").rows(); got != "5:false 6:false" {
		t.Fatalf("the rerun's rejected records %q", got)
	}
	var rh historyView
	c.k.do("GET", "/v1/jobs/"+rerun.ID+"/history", c.key, nil, 200, "").JSON(t, &rh)
	if rh.steps() != "1:replacement 3:replacement" {
		t.Fatalf("the rerun's history %q", rh.steps())
	}
}

// changesRefused: a bad replacement is 400 at its member; another
// organization's job is 404 on every route.
func changesRefused(t *testing.T, k *checked, base string, key, other apptest.Caller) {
	t.Helper()
	for _, c := range []struct{ body, field string }{
		{`{"field":"email","find":"(","replace":"x","match":"regex"}`, "find"},
		{`{"field":"email","find":"` + strings.Repeat("a", 1001) + `","replace":"x"}`, "find"},
		{`{"field":"nope","find":"a","replace":"x"}`, "field"},
		{`{"field":"email","find":"a","replace":"x","match":"fuzzy"}`, "match"},
		{`{"field":"email","find":"a","replace":"x","status":"valid"}`, "status"},
	} {
		res := k.do("POST", base+"/replacements", key, c.body, 400, "invalid_request")
		if !strings.Contains(res.Body, `"field":"`+c.field+`"`) {
			t.Errorf("%s: %s, want a problem at %s", c.body, res.Body, c.field)
		}
	}
	k.do("POST", base+"/replacements", other, `{"field":"email","find":"a","replace":"x"}`, 404, "not_found")
	k.do("GET", base+"/history", other, nil, 404, "not_found")
	k.do("POST", base+"/undo", other, nil, 404, "not_found")
	k.do("POST", base+"/redo", other, nil, 404, "not_found")
}

// TestChanges_connectJob: a connect job over two files has the routes
// under /v1/connect/jobs; a replacement of rejected rows keeps each row
// with its file, and fixes exactly those rows; on both databases.
func TestChanges_connectJob(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize, identity.Connect))}
			a := addFile(t, app, key, "a.csv", "ID,E-mail,Joined\n1,ann@,31/01/2024\n2,bob@,01/02/2024\n")
			b := addFile(t, app, key, "b.csv", "ID,E-mail,Joined\n3,cy@,31/01/2024\n")
			j, _, _ := connectJob(t, app, key, a.ID, b.ID)
			path := "/v1/connect/jobs/" + j.ID
			var rep replacementView
			k.do("POST", path+"/replacements", key, `{"field":"email","find":"@$","replace":"@x.io","match":"regex","status":"rejected"}`, 200, "").JSON(t, &rep)
			if rep.Matched != 3 {
				t.Fatalf("replacement %+v, want 3 matched", rep)
			}
			var records recordsView
			k.do("GET", path+"/records", key, nil, 200, "").JSON(t, &records)
			if records.rows() != "1:true! 2:true! 1:true!" || *records.Data[2].SourceFile != b.ID || *records.Data[2].Cells["email"] != "cy@x.io" {
				t.Fatalf("records after the replacement %q", records.rows())
			}
			var h historyView
			k.do("GET", path+"/history", key, nil, 200, "").JSON(t, &h)
			if h.steps() != "1:replacement" {
				t.Fatalf("history %q", h.steps())
			}
			k.do("POST", path+"/undo", key, nil, 200, "")
			k.do("POST", path+"/undo", key, nil, 409, "nothing_to_undo")
			k.do("POST", path+"/redo", key, nil, 200, "")
			k.do("POST", path+"/redo", key, nil, 409, "nothing_to_redo")
			res := k.do("POST", "/v1/connect/jobs", key, map[string]any{"file_ids": []string{a.ID}, "schema": jsonRaw(peopleSchema), "options": map[string]any{"review": true}}, 202, "")
			var waiting jobView
			res.JSON(t, &waiting)
			waitStatus(t, app, key, "/v1/connect/jobs/"+waiting.ID, "awaiting_review")
			k.do("POST", "/v1/connect/jobs/"+waiting.ID+"/replacements", key, `{"field":"email","find":"a","replace":"b"}`, 409, "job_not_finished")
		})
	}
}
