package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestRemote_editCells drives the cell-fix commands against a real
// server: rejected-rows lists what a job rejected, edit fixes one cell
// (and --clear another), edits lists them, and rerun applies them.
func TestRemote_editCells(t *testing.T) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			app := apptest.Start(t, target)
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv("HOME", t.TempDir())
			t.Setenv("TABNORM_API_URL", app.URL)
			t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Acme", identity.Normalize)))
			jobID := remoteEditsJob(t)
			remoteRecords(t, jobID)
			remoteEdit(t, jobID)
			remoteEditRerun(t, jobID)
		})
	}
}

// remoteEditsJob runs a job with two rejected rows.
func remoteEditsJob(t *testing.T) string {
	t.Helper()
	csv := writeFile(t, "people.csv", "id,email\n1,ann@x.io\n2,bob@\n3,cy@\n")
	out, _, err := runRemote(t, "jobs", "create", csv, "--schema", reviewSchema, "--wait", "--json")
	var j struct{ ID string }
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.ID == "" {
		t.Fatalf("create: %v %q", err, out)
	}
	return j.ID
}

// remoteEdit lists the rejected rows and edits two cells; bad edits are
// refused.
func remoteEdit(t *testing.T, jobID string) {
	t.Helper()
	out, _, err := runRemote(t, "jobs", "rejected-rows", jobID)
	want := "2\t-\trejected\temail invalid_email: "
	if err != nil || !strings.HasPrefix(out, want) || !strings.Contains(out, "\n3\t-\trejected\temail invalid_email: ") || !strings.Contains(out, `("bob@")`) {
		t.Fatalf("rejected-rows: %v\n%s", err, out)
	}
	out, _, err = runRemote(t, "jobs", "edit", jobID, "--row", "2", "--field", "email", "--value", "bob@x.io")
	if err != nil || out != "2\t-\temail\tbob@x.io\tvalid\n" {
		t.Fatalf("edit: %v %q", err, out)
	}
	out, _, err = runRemote(t, "jobs", "edit", jobID, "--row", "3", "--field", "email", "--clear")
	if err != nil || out != "3\t-\temail\t(cleared)\tvalid\n" {
		t.Fatalf("edit --clear: %v %q", err, out)
	}
	for _, bad := range [][]string{
		{"--row", "3", "--field", "email"},                            // neither --value nor --clear
		{"--row", "3", "--field", "email", "--value", "x", "--clear"}, // both
	} {
		if _, _, err := runRemote(t, append([]string{"jobs", "edit", jobID}, bad...)...); exitCode(err) != 2 {
			t.Fatalf("edit %q: exit %d (%v)", bad, exitCode(err), err)
		}
	}
	for bad, problem := range map[string]string{"9/email": "edits[0].row: the file has no row 9", "1/phone": "edits[0].field"} {
		row, field, _ := strings.Cut(bad, "/")
		_, _, err := runRemote(t, "jobs", "edit", jobID, "--row", row, "--field", field, "--value", "x@y.io")
		if exitCode(err) != 1 || !strings.Contains(err.Error(), problem) {
			t.Fatalf("edit %s: exit %d (%v), want 1 naming %s", bad, exitCode(err), err, problem)
		}
	}
}

// remoteEditRerun lists the edits and reruns with them.
func remoteEditRerun(t *testing.T, jobID string) {
	t.Helper()
	out, _, err := runRemote(t, "jobs", "edits", jobID)
	if err != nil || out != "2\t-\temail\tbob@x.io\n3\t-\temail\t(cleared)\n" {
		t.Fatalf("edits: %v %q", err, out)
	}
	out, _, err = runRemote(t, "jobs", "rerun", jobID, "--wait", "--json")
	var rerun struct {
		Status string
		Result struct {
			RowCount     int64 `json:"row_count"`
			EditsApplied int64 `json:"edits_applied"`
		}
	}
	if err != nil || json.Unmarshal([]byte(out), &rerun) != nil || rerun.Status != "succeeded" || rerun.Result.RowCount != 3 || rerun.Result.EditsApplied != 2 {
		t.Fatalf("rerun: %v %q", err, out)
	}
}

// remoteRecords lists every record, then the rejected ones from an
// offset, at most one, and as JSON lines.
func remoteRecords(t *testing.T, jobID string) {
	t.Helper()
	out, _, err := runRemote(t, "jobs", "records", jobID)
	if err != nil || !strings.HasPrefix(out, "1\t-\tvalid\n2\t-\trejected\temail invalid_email: ") || !strings.Contains(out, "\n3\t-\trejected\t") {
		t.Fatalf("records: %v\n%s", err, out)
	}
	out, _, err = runRemote(t, "jobs", "records", jobID, "--status", "rejected", "--offset", "1", "--max", "1", "--json")
	var r struct {
		Row   int64 `json:"row"`
		Valid bool  `json:"valid"`
	}
	if err != nil || strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &r) != nil || r.Row != 3 || r.Valid {
		t.Fatalf("records --status rejected --offset 1 --max 1 --json: %v %q", err, out)
	}
	if _, _, err := runRemote(t, "jobs", "records", jobID, "--sort", "nope"); exitCode(err) != 1 || !strings.Contains(err.Error(), "sort") {
		t.Fatalf("records --sort nope: exit %d (%v)", exitCode(err), err)
	}
}

// TestRemote_replaceUndoRedo drives replace (a preview, then stored),
// history, undo and redo against a real server.
func TestRemote_replaceUndoRedo(t *testing.T) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			app := apptest.Start(t, target)
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv("HOME", t.TempDir())
			t.Setenv("TABNORM_API_URL", app.URL)
			t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Acme", identity.Normalize)))
			jobID := remoteEditsJob(t)
			out, _, err := runRemote(t, "jobs", "replace", jobID, "--field", "email", "--find", "@$", "--replace", "@x.io", "--match", "regex", "--preview")
			if err != nil || out != "(preview)\t2 matched\n" {
				t.Fatalf("replace --preview: %v %q", err, out)
			}
			out, _, err = runRemote(t, "jobs", "replace", jobID, "--field", "email", "--find", "@$", "--replace", "@x.io", "--match", "regex", "--rejected")
			if err != nil || !strings.HasPrefix(out, "rpl_") || !strings.HasSuffix(out, "\t2 matched\n") {
				t.Fatalf("replace: %v %q", err, out)
			}
			out, _, err = runRemote(t, "jobs", "history", jobID)
			if err != nil || out != "1\treplacement\tdone\temail: @$ → @x.io (2 cells)\n" {
				t.Fatalf("history: %v %q", err, out)
			}
			if out, _, err = runRemote(t, "jobs", "undo", jobID); err != nil || !strings.HasPrefix(out, "1\treplacement\tundone\t") {
				t.Fatalf("undo: %v %q", err, out)
			}
			if _, _, err := runRemote(t, "jobs", "undo", jobID); exitCode(err) != 1 || !strings.Contains(err.Error(), "nothing_to_undo") {
				t.Fatalf("undo again: exit %d (%v)", exitCode(err), err)
			}
			if out, _, err = runRemote(t, "jobs", "redo", jobID); err != nil || !strings.HasPrefix(out, "1\treplacement\tdone\t") {
				t.Fatalf("redo: %v %q", err, out)
			}
		})
	}
}
