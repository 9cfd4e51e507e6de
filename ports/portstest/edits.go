package portstest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

// JobEdits is the suite of ports.JobEdits.
func JobEdits(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"put_then_list_one_edit_a_cell_the_last_wins", editsPutThenList},
		{"another_organizations_job_is_not_found", editsIsolated},
		{"past_the_limit_nothing_is_stored", editsLimit},
		{"past_the_byte_limit_nothing_is_stored", editsByteLimit},
		{"past_the_import_sessions_byte_limit_nothing_is_stored", editsSessionByteLimit},
		{"of_rows_reads_only_those_rows", editsOfRows},
		{"list_pages_by_file_row_and_field", editsPages},
		{"deleting_the_job_deletes_its_edits", editsDeletedWithJob},
		{"put_joins_the_callers_transaction", editsInTx},
		{"the_version_changes_with_every_put", editsVersion},
	})
}

func str(s string) *string { return &s }

func editsPutThenList(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	n, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{
		{Row: 3, Field: "email", Value: str("bob@example.com"), At: now},
		{Row: 1, SourceFile: "file_b", Field: "name", Value: nil, At: now},
		{Row: 1, Field: "name", Value: str(""), At: now},
	}, ports.EditLimits{Count: 10})
	ok(t, err)
	if n != 3 {
		t.Fatalf("JobEdits.Put = %d edits, want 3", n)
	}
	later := now.Add(time.Minute)
	n, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 3, Field: "email", Value: str("bob@example.org"), At: later}}, ports.EditLimits{Count: 10})
	ok(t, err)
	if n != 3 {
		t.Fatalf("JobEdits.Put of the same cell again = %d edits, want 3 (replaced, not added)", n)
	}
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	got := ""
	for _, e := range all {
		v := "null"
		if e.Value != nil {
			v = fmt.Sprintf("%q", *e.Value)
		}
		got += fmt.Sprintf("%s/%d/%s=%s@%s ", e.SourceFile, e.Row, e.Field, v, e.At.Format(time.RFC3339Nano))
	}
	want := fmt.Sprintf("/1/name=\"\"@%s /3/email=\"bob@example.org\"@%s file_b/1/name=null@%s ",
		now.Format(time.RFC3339Nano), later.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
	if got != want {
		t.Fatalf("JobEdits.All =\n%s\nwant\n%s", got, want)
	}
}

func editsIsolated(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.JobEdits.Put(ctx, other.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, ports.EditLimits{Count: 10})
	isKind(t, err, domain.ErrNotFound, "JobEdits.Put through another organization")
	_, err = s.JobEdits.Put(ctx, org.ID, "job_missing", []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, ports.EditLimits{Count: 10})
	isKind(t, err, domain.ErrNotFound, "JobEdits.Put on no job")
	_, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, ports.EditLimits{Count: 10})
	ok(t, err)
	all, err := s.JobEdits.All(ctx, other.ID, j.ID)
	ok(t, err)
	page, _, err := s.JobEdits.List(ctx, other.ID, j.ID, ports.Page{})
	ok(t, err)
	if len(all) != 0 || len(page) != 0 {
		t.Fatalf("JobEdits.All and List through another organization = %v and %v; want none", all, page)
	}
}

func editsLimit(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	var edits []normalize.Edit
	for i := 1; i <= 4; i++ {
		edits = append(edits, normalize.Edit{Row: int64(i), Field: "email", Value: str("x"), At: now})
	}
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits[:3], ports.EditLimits{Count: 4})
	ok(t, err)
	_, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{edits[3], {Row: 9, Field: "email", At: now}}, ports.EditLimits{Count: 4})
	isKind(t, err, domain.ErrConflict, "JobEdits.Put past the limit")
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeEditLimitReached {
		t.Fatalf("JobEdits.Put past the limit: %v, want code %s", err, domain.CodeEditLimitReached)
	}
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 3 {
		t.Fatalf("JobEdits.All after a refused Put = %d edits, want 3", len(all))
	}
	n, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits, ports.EditLimits{Count: 4}) // three of them replace
	ok(t, err)
	if n != 4 {
		t.Fatalf("JobEdits.Put = %d, want 4", n)
	}
}

func editsPages(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j, other := seedJob(t, s, org.ID, now), seedJob(t, s, org.ID, now)
	var edits []normalize.Edit
	var want []string
	for _, f := range []string{"", "file_a"} {
		for r := int64(1); r <= 12; r++ { // 10 before 2 only if rows sort as numbers
			for _, field := range []string{"a", "b"} {
				edits = append(edits, normalize.Edit{Row: r, SourceFile: f, Field: field, Value: str("v"), At: now})
				want = append(want, fmt.Sprintf("%s/%d/%s", f, r, field))
			}
		}
	}
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits, ports.EditLimits{Count: 1000})
	ok(t, err)
	_, err = s.JobEdits.Put(ctx, org.ID, other.ID, edits[:5], ports.EditLimits{Count: 1000})
	ok(t, err)
	got := pages(t, 7, func(p ports.Page) ([]normalize.Edit, string, error) { return s.JobEdits.List(ctx, org.ID, j.ID, p) },
		func(e normalize.Edit) string { return fmt.Sprintf("%s/%d/%s", e.SourceFile, e.Row, e.Field) })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("JobEdits.List pages =\n%v\nwant\n%v", got, want)
	}
	_, next, err := s.JobEdits.List(ctx, org.ID, j.ID, ports.Page{Limit: 2})
	ok(t, err)
	_, _, err = s.JobEdits.List(ctx, org.ID, other.ID, ports.Page{Limit: 2, Cursor: next})
	isKind(t, err, domain.ErrInvalid, "JobEdits.List: another job's cursor")
}

func editsDeletedWithJob(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, ports.EditLimits{Count: 10})
	ok(t, err)
	ok(t, s.Jobs.Delete(ctx, org.ID, j.ID))
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 0 {
		t.Fatalf("JobEdits.All of a deleted job = %v; want none (Jobs.Delete takes its edits along)", all)
	}
}

func editsInTx(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	errRollback := errors.New("roll back")
	err := s.Tx.InTx(ctx, func(ctx context.Context) error {
		if _, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, ports.EditLimits{Count: 10}); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("Tx.InTx = %v; want fn's error", err)
	}
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 0 {
		t.Fatalf("JobEdits.All after a rolled-back Put = %v; want none", all)
	}
}

// putBytes puts one edit of field "email" (5 bytes) whose value has n bytes.
func putBytes(ctx context.Context, s Stores, orgID, jobID string, row int64, n int, limits ports.EditLimits) error {
	v := strings.Repeat("x", n)
	_, err := s.JobEdits.Put(ctx, orgID, jobID, []normalize.Edit{{Row: row, Field: "email", Value: &v, At: now}}, limits)
	return err
}

func isEditLimit(t *testing.T, err error, what string) {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeEditLimitReached || !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("%s: %v, want a conflict coded %s", what, err, domain.CodeEditLimitReached)
	}
}

// editsByteLimit: a job's edits hold at most limits.Bytes bytes (value,
// field and file); past it nothing of the Put is stored, and a cell
// replaced by a shorter value frees bytes.
func editsByteLimit(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	limits := ports.EditLimits{Count: 100, Bytes: 40}
	ok(t, putBytes(ctx, s, org.ID, j.ID, 1, 10, limits))                                    // 15 bytes
	ok(t, putBytes(ctx, s, org.ID, j.ID, 2, 15, limits))                                    // 35
	isEditLimit(t, putBytes(ctx, s, org.ID, j.ID, 3, 1, limits), "Put past the byte limit") // 41
	isEditLimit(t, putBytes(ctx, s, org.ID, j.ID, 2, 21, limits), "a longer value past the byte limit")
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 2 || len(*all[1].Value) != 15 {
		t.Fatalf("JobEdits.All after refused Puts = %d edits, want the 2 stored before unchanged", len(all))
	}
	ok(t, putBytes(ctx, s, org.ID, j.ID, 2, 5, limits))                                                                    // 25
	ok(t, putBytes(ctx, s, org.ID, j.ID, 3, 10, limits))                                                                   // 40: at the limit is allowed
	multi := "é€"                                                                                                          // 5 bytes in 2 characters: bytes are counted, not characters
	_, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: &multi, At: now}}, limits) // 40 - 10 + 5
	ok(t, err)
	isEditLimit(t, putBytes(ctx, s, org.ID, j.ID, 4, 1, ports.EditLimits{Count: 100, Bytes: 40}), "past the limit in multi-byte text")
}

// editsSessionByteLimit: the jobs of one import session hold at most
// limits.SessionBytes bytes of edits together; another job is not held to it.
func editsSessionByteLimit(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	session := "imp_" + strings.ReplaceAll(org.ID, "org_", "")
	var jobs []job.Job
	for i := range 3 {
		j := newJob(org.ID, now)
		if i < 2 {
			j.ImportSessionID = session
		}
		ok(t, s.Jobs.Create(ctx, j))
		jobs = append(jobs, j)
	}
	limits := ports.EditLimits{Count: 100, Bytes: 1000, SessionBytes: 40}
	ok(t, putBytes(ctx, s, org.ID, jobs[0].ID, 1, 20, limits)) // 25 in the session
	isEditLimit(t, putBytes(ctx, s, org.ID, jobs[1].ID, 1, 20, limits), "a second job of the session past its byte limit")
	ok(t, putBytes(ctx, s, org.ID, jobs[1].ID, 1, 10, limits)) // 40
	ok(t, putBytes(ctx, s, org.ID, jobs[2].ID, 1, 50, limits)) // no session
	all, err := s.JobEdits.All(ctx, org.ID, jobs[1].ID)
	ok(t, err)
	if len(all) != 1 || len(*all[0].Value) != 10 {
		t.Fatalf("JobEdits.All of the session's second job = %d edits, want the one that fit", len(all))
	}
}

// editsOfRows: OfRows returns the edits of the rows asked for, by file,
// and no other.
func editsOfRows(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j, other := seedJob(t, s, org.ID, now), seedJob(t, s, org.ID, now)
	var edits []normalize.Edit
	for _, f := range []string{"", "file_a"} {
		for r := int64(1); r <= 1200; r++ {
			edits = append(edits, normalize.Edit{Row: r, SourceFile: f, Field: "a", Value: str("v"), At: now})
		}
	}
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits, ports.EditLimits{Count: 10_000})
	ok(t, err)
	_, err = s.JobEdits.Put(ctx, org.ID, other.ID, edits[:20], ports.EditLimits{Count: 10_000})
	ok(t, err)
	rows := map[string][]int64{"": {10, 3, 1100, 5000}, "file_a": {1}, "file_b": {1}}
	for r := int64(2000); r < 3100; r++ { // more rows than one statement takes
		rows["file_a"] = append(rows["file_a"], r)
	}
	rows["file_a"] = append(rows["file_a"], 1150) // in a later statement
	got, err := s.JobEdits.OfRows(ctx, org.ID, j.ID, rows)
	ok(t, err)
	var keys []string
	for _, e := range got {
		keys = append(keys, fmt.Sprintf("%s/%d", e.SourceFile, e.Row))
	}
	if want := "[/3 /10 /1100 file_a/1 file_a/1150]"; fmt.Sprint(keys) != want {
		t.Fatalf("JobEdits.OfRows = %v, want %s", keys, want)
	}
	got, err = s.JobEdits.OfRows(ctx, seedOrg(t, s).ID, j.ID, rows)
	ok(t, err)
	if len(got) != 0 {
		t.Fatalf("JobEdits.OfRows through another organization = %d edits; want none", len(got))
	}
}

func editsVersion(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	none, err := s.JobEdits.Version(ctx, org.ID, j.ID)
	ok(t, err)
	seen := map[string]string{none: "no edits"}
	for i, e := range []normalize.Edit{
		{Row: 1, Field: "email", Value: str("a@x"), At: now},
		{Row: 2, Field: "email", Value: str("b@x"), At: now},
		{Row: 1, Field: "email", Value: str("c@x"), At: now.Add(time.Second)}, // a replaced cell: same count
	} {
		_, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{e}, ports.EditLimits{Count: 10})
		ok(t, err)
		v, err := s.JobEdits.Version(ctx, org.ID, j.ID)
		ok(t, err)
		if was, dup := seen[v]; dup {
			t.Fatalf("JobEdits.Version after put %d = %q, the same as after %s; want a new version after every put", i+1, v, was)
		}
		seen[v] = fmt.Sprintf("put %d", i+1)
	}
	again, err := s.JobEdits.Version(ctx, org.ID, j.ID)
	ok(t, err)
	if seen[again] != "put 3" {
		t.Fatalf("JobEdits.Version read twice = %q, want the same as after put 3", again)
	}
	theirs, err := s.JobEdits.Version(ctx, other.ID, j.ID)
	ok(t, err)
	if theirs != none {
		t.Fatalf("JobEdits.Version through another organization = %q, want %q (no edits)", theirs, none)
	}
}
