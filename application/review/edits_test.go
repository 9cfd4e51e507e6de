package review

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize"
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
