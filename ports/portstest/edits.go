package portstest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
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
		{"list_pages_by_file_row_and_field", editsPages},
		{"deleting_the_job_deletes_its_edits", editsDeletedWithJob},
		{"put_joins_the_callers_transaction", editsInTx},
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
	}, 10)
	ok(t, err)
	if n != 3 {
		t.Fatalf("Put = %d edits, want 3", n)
	}
	later := now.Add(time.Minute)
	n, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 3, Field: "email", Value: str("bob@example.org"), At: later}}, 10)
	ok(t, err)
	if n != 3 {
		t.Fatalf("the same cell again: %d edits, want 3", n)
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
		t.Fatalf("All =\n%s\nwant\n%s", got, want)
	}
}

func editsIsolated(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.JobEdits.Put(ctx, other.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, 10)
	isKind(t, err, domain.ErrNotFound, "Put through another organization")
	_, err = s.JobEdits.Put(ctx, org.ID, "job_missing", []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, 10)
	isKind(t, err, domain.ErrNotFound, "Put on no job")
	_, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, 10)
	ok(t, err)
	all, err := s.JobEdits.All(ctx, other.ID, j.ID)
	ok(t, err)
	page, _, err := s.JobEdits.List(ctx, other.ID, j.ID, ports.Page{})
	ok(t, err)
	if len(all) != 0 || len(page) != 0 {
		t.Fatalf("another organization sees %v and %v", all, page)
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
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits[:3], 4)
	ok(t, err)
	_, err = s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{edits[3], {Row: 9, Field: "email", At: now}}, 4)
	isKind(t, err, domain.ErrConflict, "Put past the limit")
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeEditLimitReached {
		t.Fatalf("Put past the limit: %v, want code %s", err, domain.CodeEditLimitReached)
	}
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 3 {
		t.Fatalf("%d edits after a refused Put, want 3", len(all))
	}
	n, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits, 4) // three of them replace
	ok(t, err)
	if n != 4 {
		t.Fatalf("Put = %d, want 4", n)
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
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, edits, 1000)
	ok(t, err)
	_, err = s.JobEdits.Put(ctx, org.ID, other.ID, edits[:5], 1000)
	ok(t, err)
	got := pages(t, 7, func(p ports.Page) ([]normalize.Edit, string, error) { return s.JobEdits.List(ctx, org.ID, j.ID, p) },
		func(e normalize.Edit) string { return fmt.Sprintf("%s/%d/%s", e.SourceFile, e.Row, e.Field) })
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pages =\n%v\nwant\n%v", got, want)
	}
	_, next, err := s.JobEdits.List(ctx, org.ID, j.ID, ports.Page{Limit: 2})
	ok(t, err)
	_, _, err = s.JobEdits.List(ctx, org.ID, other.ID, ports.Page{Limit: 2, Cursor: next})
	isKind(t, err, domain.ErrInvalid, "another job's cursor")
}

func editsDeletedWithJob(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, 10)
	ok(t, err)
	ok(t, s.Jobs.Delete(ctx, org.ID, j.ID))
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 0 {
		t.Fatalf("a deleted job's edits: %v", all)
	}
}

func editsInTx(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	errRollback := errors.New("roll back")
	err := s.Tx.InTx(ctx, func(ctx context.Context) error {
		if _, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{{Row: 1, Field: "email", Value: str("x"), At: now}}, 10); err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("InTx = %v", err)
	}
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 0 {
		t.Fatalf("a rolled-back Put stored %v", all)
	}
}
