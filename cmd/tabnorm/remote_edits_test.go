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
			csv := writeFile(t, "people.csv", "id,email\n1,ann@x.io\n2,bob@\n3,cy@\n")
			out, _, err := runRemote(t, "jobs", "create", csv, "--schema", reviewSchema, "--wait", "--json")
			var j struct{ ID string }
			if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.ID == "" {
				t.Fatalf("create: %v %q", err, out)
			}

			out, _, err = runRemote(t, "jobs", "rejected-rows", j.ID)
			want := "2\t-\trejected\temail invalid_email: "
			if err != nil || !strings.HasPrefix(out, want) || !strings.Contains(out, "\n3\t-\trejected\temail invalid_email: ") || !strings.Contains(out, `("bob@")`) {
				t.Fatalf("rejected-rows: %v\n%s", err, out)
			}
			out, _, err = runRemote(t, "jobs", "edit", j.ID, "--row", "2", "--field", "email", "--value", "bob@x.io")
			if err != nil || out != "2\t-\temail\tbob@x.io\tvalid\n" {
				t.Fatalf("edit: %v %q", err, out)
			}
			out, _, err = runRemote(t, "jobs", "edit", j.ID, "--row", "3", "--field", "email", "--clear")
			if err != nil || out != "3\t-\temail\t(cleared)\tvalid\n" {
				t.Fatalf("edit --clear: %v %q", err, out)
			}
			for _, bad := range [][]string{
				{"--row", "3", "--field", "email"},                            // neither --value nor --clear
				{"--row", "3", "--field", "email", "--value", "x", "--clear"}, // both
			} {
				if _, _, err := runRemote(t, append([]string{"jobs", "edit", j.ID}, bad...)...); exitCode(err) != 2 {
					t.Fatalf("edit %q: exit %d (%v)", bad, exitCode(err), err)
				}
			}
			for bad, problem := range map[string]string{"9/email": "edits[0].row: the file has no row 9", "1/phone": "edits[0].field"} {
				row, field, _ := strings.Cut(bad, "/")
				_, _, err := runRemote(t, "jobs", "edit", j.ID, "--row", row, "--field", field, "--value", "x@y.io")
				if exitCode(err) != 1 || !strings.Contains(err.Error(), problem) {
					t.Fatalf("edit %s: exit %d (%v), want 1 naming %s", bad, exitCode(err), err, problem)
				}
			}
			out, _, err = runRemote(t, "jobs", "edits", j.ID)
			if err != nil || out != "2\t-\temail\tbob@x.io\n3\t-\temail\t(cleared)\n" {
				t.Fatalf("edits: %v %q", err, out)
			}
			out, _, err = runRemote(t, "jobs", "rerun", j.ID, "--wait", "--json")
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
		})
	}
}
