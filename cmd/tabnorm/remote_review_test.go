package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

const reviewSchema = `{"fields":[{"name":"id","type":"integer","constraints":{"required":true}},{"name":"email","type":"string","format":"email"}]}`

// TestRemote_reviewAndFix drives the review and value-fix commands against
// a real server: create --review --wait stops at the review; review, map,
// confirm --wait run the job; invalid-values lists what it rejected; rerun
// with a value_map fixes it, and rerun --map changes the mapping.
func TestRemote_reviewAndFix(t *testing.T) {
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			app := apptest.Start(t, target)
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv("HOME", t.TempDir())
			t.Setenv("TABNORM_API_URL", app.URL)
			t.Setenv("TABNORM_API_KEY", app.Key(app.Org("Acme", identity.Normalize)))
			// Pos names no field (Ident, which it was, now reads as id), so the
			// review has a column to map.
			r := &reviewRun{csv: writeFile(t, "people.csv", "Pos,E-mail\n1,ann@x.io\n2,bob@\n")}
			for _, step := range []struct {
				name string
				run  func(*testing.T, *reviewRun)
			}{
				{"create_review_wait_stops_at_the_review", remoteCreateReview},
				{"review_shows_the_mapping_and_what_blocks", remoteReviewTable},
				{"map_changes_the_mapping", remoteMap},
				{"confirm_wait_runs_the_job", remoteConfirm},
				{"invalid_values_lists_the_rejected_values", remoteInvalidValues},
				{"rerun_fixes_values_and_changes_the_mapping", remoteRerun},
			} {
				if !t.Run(step.name, func(t *testing.T) { step.run(t, r) }) {
					return // the later steps build on this one
				}
			}
		})
	}
}

// reviewRun is the state the steps of the review script share.
type reviewRun struct {
	csv   string
	jobID string
}

func remoteCreateReview(t *testing.T, r *reviewRun) {
	if _, _, err := runRemote(t, "jobs", "create", r.csv, "--schema", reviewSchema, "--review", "--options", "[1]"); exitCode(err) != 2 {
		t.Fatalf("--review with options that are no object: exit %d (%v)", exitCode(err), err)
	}
	out, errOut, err := runRemote(t, "jobs", "create", r.csv, "--schema", reviewSchema, "--options", `{"trim":true}`, "--review", "--wait", "--json")
	if err != nil {
		t.Fatalf("create --review --wait: %v\n%s", err, errOut)
	}
	var j struct {
		ID      string
		Status  string
		Options struct {
			Review bool
			Trim   bool
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Status != "awaiting_review" || !j.Options.Review || !j.Options.Trim {
		t.Fatalf("create --review --wait printed %q: %v", out, err)
	}
	r.jobID = j.ID
	if !strings.Contains(errOut, j.ID+" queued\n") || !strings.HasSuffix(errOut, j.ID+" awaiting_review\n") {
		t.Fatalf("states %q", errOut)
	}
}

func remoteReviewTable(t *testing.T, r *reviewRun) {
	out, _, err := runRemote(t, "jobs", "review", r.jobID)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], r.jobID+"\tawaiting_review\treview pending, expires ") || !strings.HasPrefix(lines[1], "sample: 2 records, ") || !strings.HasSuffix(lines[1], " rejected (the whole file)") {
		t.Fatalf("review heading %q", out)
	}
	if fields := strings.Fields(rowOf(out, "Pos")); len(fields) < 2 || fields[1] != "-" || !strings.Contains(rowOf(out, "Pos"), "1, 2") {
		t.Fatalf("Pos row %q in\n%s", rowOf(out, "Pos"), out)
	}
	if fields := strings.Fields(rowOf(out, "E-mail")); len(fields) < 3 || fields[1] != "email" || (fields[2] != "normalized" && fields[2] != "alias") {
		t.Fatalf("E-mail row %q in\n%s", rowOf(out, "E-mail"), out)
	}
	if !strings.Contains(out, "\nunmapped fields: id\n") || !strings.Contains(out, "\nblocking: required_field_unmapped: ") {
		t.Fatalf("review %s", out)
	}
	out, _, err = runRemote(t, "jobs", "review", r.jobID, "--json")
	if err != nil || !strings.Contains(out, `"object":"job_review"`) || strings.Count(out, "\n") != 1 {
		t.Fatalf("review --json: %v %q", err, out)
	}
	_, _, err = runRemote(t, "jobs", "confirm", r.jobID)
	if exitCode(err) != 1 || !strings.HasPrefix(message(err), "required_field_unmapped: ") {
		t.Fatalf("confirming a blocked review: exit %d, %q", exitCode(err), message(err))
	}
}

// rowOf is the line of a printed table that starts with the column.
func rowOf(table, column string) string {
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, column+" ") {
			return l
		}
	}
	return ""
}

func remoteMap(t *testing.T, r *reviewRun) {
	for _, bad := range []string{"Pos", "=id"} {
		if _, _, err := runRemote(t, "jobs", "map", r.jobID, bad); exitCode(err) != 2 {
			t.Fatalf("map %q: exit %d (%v)", bad, exitCode(err), err)
		}
	}
	if _, _, err := runRemote(t, "jobs", "map", r.jobID, "Nope=id"); exitCode(err) != 1 || !strings.HasPrefix(message(err), "invalid_mapping: ") {
		t.Fatalf("map a column the file lacks: exit %d, %q", exitCode(err), message(err))
	}
	out, _, err := runRemote(t, "jobs", "map", r.jobID, "Pos=id", "E-mail=")
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(rowOf(out, "Pos")); len(f) < 4 || f[1] != "id" || f[2] != "explicit" {
		t.Fatalf("Pos after map %q in\n%s", rowOf(out, "Pos"), out)
	}
	if f := strings.Fields(rowOf(out, "E-mail")); len(f) < 2 || f[1] != "(ignored)" || strings.Contains(out, "blocking:") {
		t.Fatalf("E-mail after map %q in\n%s", rowOf(out, "E-mail"), out)
	}
	out, _, err = runRemote(t, "jobs", "map", r.jobID, "E-mail=email")
	if f := strings.Fields(rowOf(out, "E-mail")); err != nil || len(f) < 3 || f[1] != "email" || f[2] != "explicit" || !strings.Contains(out, "sample issues: email error invalid_email ×1") {
		t.Fatalf("map E-mail back: %v\n%s", err, out)
	}
}

func remoteConfirm(t *testing.T, r *reviewRun) {
	out, errOut, err := runRemote(t, "jobs", "confirm", r.jobID, "--wait")
	if err != nil {
		t.Fatalf("confirm --wait: %v\n%s", err, errOut)
	}
	if out != r.jobID+"\tsucceeded\tnormalize\t1 rows, 1 rejected, 1 issues\n" || !strings.HasSuffix(errOut, r.jobID+" succeeded\n") {
		t.Fatalf("confirm --wait printed %q / %q", out, errOut)
	}
	if out, _, err := runRemote(t, "jobs", "review", r.jobID); err != nil || !strings.HasPrefix(out, r.jobID+"\tsucceeded\treview confirmed\n") {
		t.Fatalf("review after the run: %v %q", err, out)
	}
}

func remoteInvalidValues(t *testing.T, r *reviewRun) {
	if _, _, err := runRemote(t, "jobs", "invalid-values", r.jobID); exitCode(err) != 2 {
		t.Fatalf("invalid-values without --field: exit %d (%v)", exitCode(err), err)
	}
	out, _, err := runRemote(t, "jobs", "invalid-values", r.jobID, "--field", "email")
	if err != nil || out != "bob@\t1\tinvalid_email\n" {
		t.Fatalf("invalid-values: %v %q", err, out)
	}
	out, _, err = runRemote(t, "jobs", "invalid-values", r.jobID, "--field", "email", "--json")
	if err != nil || out != `{"object":"invalid_value","value":"bob@","count":1,"code":"invalid_email"}`+"\n" {
		t.Fatalf("invalid-values --json: %v %q", err, out)
	}
}

func remoteRerun(t *testing.T, r *reviewRun) {
	out, errOut, err := runRemote(t, "jobs", "rerun", r.jobID, "--options", `{"value_map":{"email":{"bob@":"bob@x.io"}}}`, "--wait", "--json")
	if err != nil {
		t.Fatalf("rerun --wait: %v\n%s", err, errOut)
	}
	var j struct {
		ID     string
		Status string
		Source struct {
			RerunOf string `json:"rerun_of"`
		}
		Result struct {
			RowCount      int64 `json:"row_count"`
			RejectedCount int64 `json:"rejected_count"`
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.ID == r.jobID || j.Status != "succeeded" || j.Source.RerunOf != r.jobID ||
		j.Result.RowCount != 2 || j.Result.RejectedCount != 0 {
		t.Fatalf("rerun printed %q: %v", out, err)
	}
	if out, _, err := runRemote(t, "jobs", "rows", j.ID, "--format", "csv"); err != nil || out != "id,email\n1,ann@x.io\n2,bob@x.io\n" {
		t.Fatalf("fixed rows: %v %q", err, out)
	}
	// Ignoring the column the required field comes from fails the rerun.
	out, _, err = runRemote(t, "jobs", "rerun", r.jobID, "--map", "Pos=", "--wait")
	if exitCode(err) != 1 || !strings.Contains(out, "\tfailed\t") || !strings.Contains(message(err), "required_field_unmapped") {
		t.Fatalf("rerun --map 'Pos=': exit %d, %q, %q", exitCode(err), out, message(err))
	}
	if _, _, err := runRemote(t, "jobs", "rerun", r.jobID, "--map", "Nope=id"); exitCode(err) != 1 || !strings.HasPrefix(message(err), "invalid_mapping: ") {
		t.Fatalf("rerun --map of a column the file lacks: exit %d, %q", exitCode(err), message(err))
	}
	// Back to matching: the rerun waits for its review.
	out, _, err = runRemote(t, "jobs", "rerun", r.jobID, "--review", "--wait", "--json")
	j.Status = ""
	if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.Status != "awaiting_review" || j.Source.RerunOf != r.jobID {
		t.Fatalf("rerun --review --wait: %v %q", err, out)
	}
}

// TestMappingArgs: 'Column=field' arguments, an empty field ignoring the
// column and the field after the last '='.
func TestMappingArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		want string // "col:field" joined by " ", "col:-" for nil; "" for a usage error
	}{
		{"field", []string{"E-mail=email"}, "E-mail:email"},
		{"empty_field_ignores", []string{"Notes="}, "Notes:-"},
		{"header_with_equals", []string{"a=b=c"}, "a=b:c"},
		{"spaces_kept_in_header", []string{"First name = name"}, "First name :name"},
		{"no_equals", []string{"Notes"}, ""},
		{"no_column", []string{"=id"}, ""},
		{"column_twice", []string{"A=x", "A=y"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, err := mappingArgs(c.args)
			if c.want == "" {
				if exitCode(err) != 2 {
					t.Fatalf("%q: %v, want a usage error", c.args, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range c.args {
				col := a[:strings.LastIndexByte(a, '=')]
				f := "-"
				if m[col] != nil {
					f = *m[col]
				}
				got = append(got, col+":"+f)
			}
			if strings.Join(got, " ") != c.want || len(m) != len(c.args) {
				t.Fatalf("%q → %v", c.args, got)
			}
		})
	}
}
