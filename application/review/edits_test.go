package review

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	domainconnect "github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

func text(s string) *string { return &s }

func editsOf(es []normalize.Edit) string {
	out := ""
	for _, e := range es {
		v := "null"
		if e.Value != nil {
			v = *e.Value
		}
		out += fmt.Sprintf("%s/%d/%s=%s ", e.SourceFile, e.Row, e.Field, v)
	}
	return out
}

func TestService_Rerun_edits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the rerun holds the original's edits and the request's, which win cell by cell", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		f.edits["job_done"] = []normalize.Edit{{Row: 1, Field: "email", Value: text("a@x.io")}, {Row: 2, Field: "active", Value: text("yes")}}
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{Edits: []normalize.Edit{{Row: 2, Field: "active", Value: nil}, {Row: 5, Field: "name", Value: text("Bo")}}})
		if err != nil {
			t.Fatal(err)
		}
		j, err := f.svc.SubmitRerun(ctx, acme, r)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := editsOf(f.edits[j.ID]), "/1/email=a@x.io /2/active=null /5/name=Bo "; got != want {
			t.Fatalf("the rerun's edits are %q, want %q", got, want)
		}
		if got := editsOf(f.edits["job_done"]); got != "/1/email=a@x.io /2/active=yes " {
			t.Fatalf("the original's edits changed: %q", got)
		}
	})

	t.Run("an edit of a field the schema lacks is refused before anything is copied", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		_, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{Edits: []normalize.Edit{{Row: 1, Field: "phone", Value: text("1")}}})
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidRequest || len(de.Fields) != 1 || de.Fields[0].Field != "edits[0].field" {
			t.Fatalf("PrepareRerun = %v", err)
		}
		if n := len(f.queuedJobs()); n != 0 {
			t.Fatalf("%d jobs queued", n)
		}
	})

	t.Run("edits past the limit make no rerun", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		for i := range normalize.MaxEdits {
			f.edits["job_done"] = append(f.edits["job_done"], normalize.Edit{Row: int64(i + 1), Field: "email", Value: text("x")})
		}
		_, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{Edits: []normalize.Edit{{Row: normalize.MaxEdits + 1, Field: "email", Value: text("y")}}})
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeEditLimitReached {
			t.Fatalf("PrepareRerun = %v, want %s", err, domain.CodeEditLimitReached)
		}
	})

	t.Run("a failed submission stores no edits", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		r, err := f.svc.PrepareRerun(ctx, acme, "job_done", RerunRequest{Edits: []normalize.Edit{{Row: 1, Field: "email", Value: text("b@x.io")}}})
		if err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.failKind = "job.queued"
		f.mu.Unlock()
		if _, err := f.svc.SubmitRerun(ctx, acme, r); err == nil {
			t.Fatal("SubmitRerun succeeded while events cannot be stored")
		}
		if _, ok := f.edits[r.jobID]; ok {
			t.Fatalf("edits of a rerun that was not made: %v", f.edits[r.jobID])
		}
	})
}

// codesOf are a checked row's issue codes, in order.
func codesOf(c normalize.RowCheck) string {
	var out []string
	for _, is := range c.Issues {
		out = append(out, is.Code)
	}
	return strings.Join(out, ",")
}

// withFile gives a finished job of the fixture another uploaded file.
func (f *fixture) withFile(id, content string) {
	f.putBlob(jobs.SourceKey(acme.OrgID, id), content)
}

func TestService_AddEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("an edit that fixes its row is stored and answered with the row valid", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		got, err := f.svc.AddEdits(ctx, acme, "job_done", []normalize.Edit{{Row: 1, Field: "active", Value: text("yes")}})
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != 1 || len(got.Edits) != 1 {
			t.Fatalf("AddEdits = %+v", got)
		}
		c := got.Edits[0]
		if !c.Row.Found || !c.Row.Valid || fmt.Sprint(c.Row.Edited) != "[active]" || codesOf(c.Row) != "" || !c.Edit.At.Equal(now) {
			t.Fatalf("the edit's check %+v", c)
		}
		if got := editsOf(f.edits["job_done"]); got != "/1/active=yes " {
			t.Fatalf("stored edits %q", got)
		}
	})

	t.Run("an edit that leaves its row invalid is stored with the row's issues", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		got, err := f.svc.AddEdits(ctx, acme, "job_done", []normalize.Edit{{Row: 1, Field: "name", Value: nil}})
		if err != nil {
			t.Fatal(err)
		}
		if c := got.Edits[0].Row; c.Valid || codesOf(c) != "invalid_boolean,required" || c.Cells["name"] != nil {
			t.Fatalf("the row %+v, issues %s", c, codesOf(c))
		}
		if got.Total != 1 {
			t.Fatalf("total %d", got.Total)
		}
	})

	t.Run("the same cell twice is one edit, the last value winning, and a cell edited before takes the new value", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.finished("job_done", "")
		f.edits["job_done"] = []normalize.Edit{{Row: 1, Field: "active", Value: text("no")}, {Row: 1, Field: "email", Value: text("a@x.io")}}
		got, err := f.svc.AddEdits(ctx, acme, "job_done", []normalize.Edit{
			{Row: 1, Field: "active", Value: text("maybe")}, {Row: 1, Field: "active", Value: text("yes")}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Edits) != 1 || *got.Edits[0].Edit.Value != "yes" || got.Total != 2 || !got.Edits[0].Row.Valid {
			t.Fatalf("AddEdits = %+v", got)
		}
		// The row is checked with the job's other edits too.
		if v := got.Edits[0].Row.Cells["email"]; v == nil || *v != "a@x.io" || fmt.Sprint(got.Edits[0].Row.Edited) != "[active email]" {
			t.Fatalf("the row's cells %v, edited %v", got.Edits[0].Row.Cells, got.Edits[0].Row.Edited)
		}
		if got := editsOf(f.edits["job_done"]); got != "/1/active=yes /1/email=a@x.io " {
			t.Fatalf("stored edits %q", got)
		}
	})
}

// TestService_AddEdits_refused: a refused request stores nothing, and
// says why with a stable code.
func TestService_AddEdits_refused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	f.finished("job_done", "")
	running := f.finished("job_running", "")
	running.Status, running.FinishedAt = job.Running, nil
	f.put(running)
	inferred := f.finished("job_inferred", "")
	inferred.Mode, inferred.Schema = normalize.ModeInfer, nil
	f.put(inferred)
	other := f.finished("job_other", "")
	other.OrgID = "org_other"
	f.put(other)
	f.finished("job_deleted", "")
	f.mu.Lock()
	delete(f.blobMap, jobs.SourceKey(acme.OrgID, "job_deleted"))
	f.mu.Unlock()
	full := f.finished("job_full", "")
	for i := range normalize.MaxEdits {
		f.edits[full.ID] = append(f.edits[full.ID], normalize.Edit{Row: int64(i + 1), Field: "email", Value: text("x")})
	}
	tooMany := make([]normalize.Edit, normalize.MaxEdits+1)
	for i := range tooMany {
		tooMany[i] = normalize.Edit{Row: int64(i + 1), Field: "email", Value: text("x")}
	}
	yes := func(row int64, field, file string) normalize.Edit {
		return normalize.Edit{Row: row, Field: field, SourceFile: file, Value: text("yes")}
	}

	for _, c := range []struct {
		name, job string
		edits     []normalize.Edit
		code      domain.Code
		fields    string
	}{
		{"no edits", "job_done", nil, domain.CodeInvalidRequest, "edits"},
		{"a row the file does not have", "job_done", []normalize.Edit{yes(1, "active", ""), yes(2, "active", "")}, domain.CodeInvalidRequest, "edits[1].row"},
		{"a row under 1, a field the schema lacks, a file the job does not read", "job_done",
			[]normalize.Edit{yes(0, "active", ""), yes(1, "colour", ""), yes(1, "active", "file_x")}, domain.CodeInvalidRequest,
			"edits[0].row,edits[1].field,edits[2].source_file"},
		{"more edits than a job holds, in one request", "job_done", tooMany, domain.CodeEditLimitReached, ""},
		// A new cell of a row the file has: the store counts the job's edits.
		{"a job's edits past the limit", "job_full", []normalize.Edit{yes(1, "active", "")}, domain.CodeEditLimitReached, ""},
		{"an unfinished job", "job_running", []normalize.Edit{yes(1, "active", "")}, domain.CodeJobNotFinished, ""},
		{"a job in infer mode", "job_inferred", []normalize.Edit{yes(1, "active", "")}, domain.CodeInvalidRequest, ""},
		{"another organization's job", "job_other", []normalize.Edit{yes(1, "active", "")}, domain.CodeNotFound, ""},
		{"an unknown job", "job_nope", []normalize.Edit{yes(1, "active", "")}, domain.CodeNotFound, ""},
		{"a file retention deleted", "job_deleted", []normalize.Edit{yes(1, "active", "")}, domain.CodeSourceDeleted, ""},
	} {
		before := len(f.edits[c.job])
		_, err := f.svc.AddEdits(ctx, acme, c.job, c.edits)
		if domain.CodeOf(err) != c.code || fieldsOf(err) != c.fields {
			t.Errorf("%s: %v (fields %q), want %s (fields %q)", c.name, err, fieldsOf(err), c.code, c.fields)
		}
		if n := len(f.edits[c.job]); n != before {
			t.Errorf("%s: the job holds %d edits, it held %d", c.name, n, before)
		}
	}
}

// TestService_AddEdits_connect: a connect job's edits name the library
// file their row is of, and each file is read for its own rows.
func TestService_AddEdits_connect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	j := f.finished("job_done", "")
	j.SourceType = job.SourceConnect
	j.Files = []job.File{{ID: "file_a", Filename: "a.csv", Format: "csv"}, {ID: "file_b", Filename: "b.csv", Format: "csv"}}
	f.put(j)
	f.putBlob(domainconnect.BlobKey(acme.OrgID, "file_a"), "Name,E-Mail,Flag\nAnn,ann@x.io,ja\n")
	f.putBlob(domainconnect.BlobKey(acme.OrgID, "file_b"), "Name,E-Mail,Flag\nBo,bo@x.io,yes\nCy,cy@x.io,nein\n")

	got, err := f.svc.AddEdits(ctx, acme, "job_done", []normalize.Edit{
		{Row: 2, SourceFile: "file_b", Field: "active", Value: text("no")}, {Row: 1, SourceFile: "file_a", Field: "name", Value: text("Anna")}})
	if err != nil {
		t.Fatal(err)
	}
	// Ordered by file, row and field; file_a's row 1 keeps its error.
	if len(got.Edits) != 2 || got.Edits[0].Row.SourceFile != "file_a" || got.Edits[0].Row.Valid || codesOf(got.Edits[0].Row) != "invalid_boolean" ||
		got.Edits[1].Row.SourceFile != "file_b" || got.Edits[1].Row.Row != 2 || !got.Edits[1].Row.Valid {
		t.Fatalf("AddEdits = %+v", got)
	}
	if v := got.Edits[1].Row.Cells["name"]; v == nil || *v != "Cy" {
		t.Fatalf("file_b's row 2 was not read from file_b: %v", got.Edits[1].Row.Cells)
	}

	for _, c := range []struct {
		name   string
		edit   normalize.Edit
		fields string
	}{
		{"an uploaded file's null", normalize.Edit{Row: 1, Field: "active", Value: text("no")}, "edits[0].source_file"},
		{"a row only another file has", normalize.Edit{Row: 2, SourceFile: "file_a", Field: "active", Value: text("no")}, "edits[0].row"},
	} {
		_, err := f.svc.AddEdits(ctx, acme, "job_done", []normalize.Edit{c.edit})
		if domain.CodeOf(err) != domain.CodeInvalidRequest || fieldsOf(err) != c.fields {
			t.Errorf("%s: %v (fields %q), want %s", c.name, err, fieldsOf(err), c.fields)
		}
	}
	if got := editsOf(f.edits["job_done"]); got != "file_a/1/name=Anna file_b/2/active=no " {
		t.Fatalf("stored edits %q", got)
	}
}

// uniqueSchema and keySchema check uniqueness, which only a run over the
// whole file finds: a unique email, a primary key of name.
const (
	uniqueSchema = `{"fields":[{"name":"name","constraints":{"required":true}},{"name":"email","constraints":{"unique":true}},{"name":"active","type":"boolean"}]}`
	keySchema    = `{"fields":[{"name":"name","constraints":{"required":true}},{"name":"email"},{"name":"active","type":"boolean"}],"primaryKey":["name"]}`
)

// TestService_AddEdits_runIssues: a value the run found repeating an
// earlier row's stays on its row, since a check of the row alone cannot
// find it, until an edit changes that value.
func TestService_AddEdits_runIssues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const (
		notUnique = `{"row":2,"source_file":null,"column":"E-Mail","field":"email","severity":"error","code":"not_unique","message":"m","value":"ann@x.io"}`
		duplicate = `{"row":2,"source_file":null,"column":null,"field":null,"severity":"error","code":"duplicate_row","message":"m","value":null}`
		warning   = `{"row":2,"source_file":null,"column":"E-Mail","field":"email","severity":"warning","code":"not_unique","message":"m","value":"ann@x.io"}`
	)
	for _, c := range []struct {
		name, schema, issues string
		edit                 normalize.Edit
		valid                bool
		codes                string
	}{
		{"a repeated value stays while another field is edited", uniqueSchema, notUnique + "\n" + notUnique,
			normalize.Edit{Row: 2, Field: "active", Value: text("yes")}, false, "not_unique"},
		{"an edit of the repeated value clears it", uniqueSchema, notUnique,
			normalize.Edit{Row: 2, Field: "email", Value: text("bo@x.io")}, true, ""},
		{"a repeated key stays while a field outside the key is edited", keySchema, duplicate,
			normalize.Edit{Row: 2, Field: "email", Value: text("bo@x.io")}, false, "duplicate_row"},
		{"an edit of the key clears a repeated key", keySchema, duplicate,
			normalize.Edit{Row: 2, Field: "name", Value: text("Bo")}, true, ""},
		{"a warning is carried but leaves the row valid", uniqueSchema, warning,
			normalize.Edit{Row: 2, Field: "active", Value: text("yes")}, true, "not_unique"},
		{"another row's issue is not", uniqueSchema, strings.Replace(notUnique, `"row":2`, `"row":1`, 1),
			normalize.Edit{Row: 2, Field: "active", Value: text("yes")}, true, ""},
		{"a schema without uniqueness carries nothing", peopleSchema, notUnique,
			normalize.Edit{Row: 2, Field: "active", Value: text("yes")}, true, ""},
	} {
		f := newFixture(t, Config{})
		j := f.finished("job_done", "")
		j.Schema = []byte(c.schema)
		f.put(j)
		f.withFile("job_done", "Name,E-Mail,Flag\nAnn,ann@x.io,yes\nAnn,ann@x.io,no\n")
		f.putBlob(issuesKey("job_done"), c.issues+"\n")
		got, err := f.svc.AddEdits(ctx, acme, "job_done", []normalize.Edit{c.edit})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r := got.Edits[0].Row; r.Valid != c.valid || codesOf(r) != c.codes {
			t.Errorf("%s: valid %t, issues %q; want %t, %q", c.name, r.Valid, codesOf(r), c.valid, c.codes)
		}
	}
}

// rowsOf are checked rows as "row:valid", in order.
func rowsOf(rows []normalize.RowCheck) string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s%d:%t", r.SourceFile, r.Row, r.Valid))
	}
	return strings.Join(out, " ")
}

// rejecting stores a succeeded job whose run rejected rows 2, 4 and 5 of
// its file: its issues have errors of those rows (row 4 twice), a warning
// of row 3 and an error of no row.
func (f *fixture) rejecting(id string) job.Job {
	f.t.Helper()
	j := f.finished(id, "")
	j.Progress = job.Progress{RowsRead: 5, RowsValid: 2, RowsRejected: 3}
	f.withFile(id, "Name,E-Mail,Flag\nAnn,ann@x.io,yes\nBo,bo@x.io,ja\nCy,cy@x.io,no\n,dee@x.io,yes\nEd,ed@x.io,nein\n")
	f.putBlob(issuesKey(id), strings.Join([]string{
		issue(2, "active", "invalid_boolean", "ja"),
		`{"row":3,"source_file":null,"column":"E-Mail","field":"email","severity":"warning","code":"value_trimmed","message":"m","value":"cy@x.io"}`,
		`{"row":4,"source_file":null,"column":"Name","field":"name","severity":"error","code":"required","message":"m","value":null}`,
		issue(4, "email", "invalid_email", "dee@x.io"),
		`{"row":null,"source_file":null,"column":null,"field":null,"severity":"error","code":"edit_not_applied","message":"m","value":null}`,
		issue(5, "active", "invalid_boolean", "nein"),
	}, "\n")+"\n")
	return f.put(j)
}

func TestService_RejectedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the rejected rows come a page at a time, in the file's order, checked with the job's edits", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.rejecting("job_done")
		f.edits["job_done"] = []normalize.Edit{{Row: 2, Field: "active", Value: text("no")}}
		first, err := f.svc.RejectedRows(ctx, acme, "job_done", ports.Page{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(first.Fields) != "[name email active]" || first.Total != 3 || first.Next == "" || rowsOf(first.Rows) != "2:true 4:false" {
			t.Fatalf("first page %+v", first)
		}
		if fmt.Sprint(first.Rows[0].Edited) != "[active]" || codesOf(first.Rows[1]) != "required" ||
			string(first.Rows[1].Values) != `{"name":null,"email":"dee@x.io","active":true}` {
			t.Fatalf("rows %+v", first.Rows)
		}
		second, err := f.svc.RejectedRows(ctx, acme, "job_done", ports.Page{Limit: 2, Cursor: first.Next})
		if err != nil {
			t.Fatal(err)
		}
		if rowsOf(second.Rows) != "5:false" || second.Next != "" || second.Total != 3 || codesOf(second.Rows[0]) != "invalid_boolean" {
			t.Fatalf("second page %+v", second)
		}
		all, err := f.svc.RejectedRows(ctx, acme, "job_done", ports.Page{Limit: 10})
		if err != nil || rowsOf(all.Rows) != "2:true 4:false 5:false" || all.Next != "" {
			t.Fatalf("one page of all: %+v, %v", all, err)
		}
		past, err := f.svc.RejectedRows(ctx, acme, "job_done", ports.Page{Limit: 2, Cursor: rejectedCursor("job_done", 3)})
		if err != nil || past.Rows == nil || len(past.Rows) != 0 || past.Next != "" || past.Total != 3 {
			t.Fatalf("a page past the end: %+v, %v", past, err)
		}
	})

	t.Run("a repeated value the run found stays on its row", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		j := f.finished("job_done", "")
		j.Schema = []byte(uniqueSchema)
		f.put(j)
		f.withFile("job_done", "Name,E-Mail,Flag\nAnn,ann@x.io,yes\nBo,ann@x.io,no\n")
		f.putBlob(issuesKey("job_done"), issue(2, "email", "not_unique", "ann@x.io")+"\n")
		got, err := f.svc.RejectedRows(ctx, acme, "job_done", ports.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if rowsOf(got.Rows) != "2:false" || codesOf(got.Rows[0]) != "not_unique" {
			t.Fatalf("rows %+v", got.Rows)
		}
	})
}

func TestService_RejectedRows_refused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	f.rejecting("job_done")
	f.rejecting("job_other")
	running := f.rejecting("job_running")
	running.Status, running.FinishedAt = job.Running, nil
	f.put(running)
	f.rejecting("job_purged")
	f.mu.Lock()
	delete(f.blobMap, issuesKey("job_purged"))
	f.mu.Unlock()
	f.rejecting("job_deleted")
	f.mu.Lock()
	delete(f.blobMap, jobs.SourceKey(acme.OrgID, "job_deleted"))
	f.mu.Unlock()
	other := f.rejecting("job_foreign")
	other.OrgID = "org_other"
	f.put(other)

	for _, c := range []struct {
		name, job, cursor string
		want              domain.Code
	}{
		{"another job's cursor", "job_done", rejectedCursor("job_other", 2), domain.CodeInvalidCursor},
		{"a cursor of another list", "job_done", valuesCursor("job_done", "active", 2), domain.CodeInvalidCursor},
		{"a cursor that is not base64", "job_done", "!!", domain.CodeInvalidCursor},
		{"a negative offset", "job_done", rejectedCursor("job_done", -1), domain.CodeInvalidCursor},
		{"an unfinished job", "job_running", "", domain.CodeJobNotFinished},
		{"results deleted", "job_purged", "", domain.CodeNotFound},
		{"a file retention deleted", "job_deleted", "", domain.CodeSourceDeleted},
		{"another organization's job", "job_foreign", "", domain.CodeNotFound},
	} {
		if _, err := f.svc.RejectedRows(ctx, acme, c.job, ports.Page{Limit: 10, Cursor: c.cursor}); domain.CodeOf(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}

	f.rejecting("job_broken")
	f.brokenAt[issuesKey("job_broken")] = 10
	if _, err := f.svc.RejectedRows(ctx, acme, "job_broken", ports.Page{Limit: 10}); err == nil || !strings.Contains(err.Error(), "issues of job job_broken") {
		t.Errorf("issues that cannot be read: %v", err)
	}
}

// TestService_Edits: any job of the organization lists its edits, a
// rerun's too while it runs; another organization's job is not found.
func TestService_Edits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	running := f.finished("job_rerun", "")
	running.Status, running.FinishedAt = job.Running, nil
	f.put(running)
	f.edits["job_rerun"] = []normalize.Edit{{Row: 1, Field: "email", Value: text("a@x.io")}, {Row: 2, Field: "active", Value: nil}}
	other := f.finished("job_other", "")
	other.OrgID = "org_other"
	f.put(other)
	f.edits["job_other"] = []normalize.Edit{{Row: 1, Field: "email", Value: text("secret")}}

	first, next, err := f.svc.Edits(ctx, acme, "job_rerun", ports.Page{Limit: 1})
	if err != nil || editsOf(first) != "/1/email=a@x.io " || next == "" {
		t.Fatalf("first page %q, next %q, %v", editsOf(first), next, err)
	}
	second, next, err := f.svc.Edits(ctx, acme, "job_rerun", ports.Page{Limit: 1, Cursor: next})
	if err != nil || editsOf(second) != "/2/active=null " || next != "" {
		t.Fatalf("second page %q, next %q, %v", editsOf(second), next, err)
	}
	if got, _, err := f.svc.Edits(ctx, acme, "job_other", ports.Page{Limit: 10}); domain.CodeOf(err) != domain.CodeNotFound || got != nil {
		t.Fatalf("another organization's job: %v, %v", got, err)
	}
}

// TestCheckOptions: a check reads rows as the job's run did: with its
// decided mapping, and the date orders and decimal marks it decided
// where the job's options did not set them.
func TestCheckOptions(t *testing.T) {
	t.Parallel()
	detected := []byte(`{"options":{"columns":{"Born":{"date_order":"DMY"},"Paid":{"decimal":","}}}}`)
	for _, c := range []struct {
		name, options, mapping string
		detected               []byte
		want                   string
	}{
		{"the run's decisions", `{}`, `[{"source_column":"Flag","field":"active"}]`, detected, "map[Flag:active] Born=DMY/ Paid=/,"},
		{"the job's own column options win", `{"columns":{"Born":{"date_order":"MDY"}}}`, ``, detected, "map[] Born=MDY/ Paid=/,"},
		{"a run that decided nothing", `{"mapping":{"Flag":"active"}}`, ``, nil, "map[Flag:active]"},
	} {
		j := job.Job{ID: "job_1", Mode: normalize.ModeNormalize, Options: []byte(c.options), Mapping: []byte(c.mapping)}
		if c.detected != nil {
			j.Result = &job.Result{Detected: c.detected}
		}
		opts, err := checkOptions(j)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := fmt.Sprint(opts.Mapping)
		for _, col := range slices.Sorted(maps.Keys(opts.Columns)) {
			got += fmt.Sprintf(" %s=%s/%s", col, opts.Columns[col].DateOrder, opts.Columns[col].Decimal)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if _, err := checkOptions(job.Job{ID: "job_1", Mode: normalize.ModeNormalize, Options: []byte(`{"date_order":"sometimes"}`)}); err == nil ||
		!strings.Contains(err.Error(), "options of job job_1") {
		t.Errorf("options that do not parse: %v", err)
	}
}
