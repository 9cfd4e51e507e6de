package review

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
)

var (
	header = []string{"Name", "E-Mail", "Flag"}
	ann    = []string{"Ann", "ann@x.io", "yes"}
	bob    = []string{"Bob", "bob@x.io", "no"}
)

const ttl = 48 * time.Hour

func TestService_Get(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{TTL: ttl})
	pending := f.awaiting("job_pending", "", `{"review":true}`, header, ann, bob)
	reviewed := now.Add(-time.Minute)
	confirmed := pending
	confirmed.ID, confirmed.Status, confirmed.ReviewedAt = "job_confirmed", job.Queued, &reviewed
	f.put(confirmed)
	expired := pending
	expired.ID, expired.Status, expired.Failure = "job_expired", job.Canceled, &job.Failure{Code: job.ReviewExpired, Message: "m"}
	f.put(expired)
	canceled := pending
	canceled.ID, canceled.Status = "job_canceled", job.Canceled
	f.put(canceled)
	f.put(job.Job{ID: "job_plain", Status: job.Succeeded})
	f.put(job.Job{ID: "job_foreign", OrgID: "org_other", Status: job.AwaitingReview, Review: pending.Review})

	for _, c := range []struct{ id, status string }{
		{"job_pending", StatusPending}, {"job_confirmed", StatusConfirmed}, {"job_expired", StatusExpired}, {"job_canceled", StatusCanceled},
	} {
		v, err := f.svc.Get(ctx, acme, c.id)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		if v.Status != c.status || v.Job.ID != c.id || len(v.Review.Columns) != 3 {
			t.Errorf("%s: status %s, job %s, %d columns; want %s", c.id, v.Status, v.Job.ID, len(v.Review.Columns), c.status)
		}
		wantExpiry := c.status == StatusPending
		if (v.ExpiresAt != nil) != wantExpiry {
			t.Errorf("%s: expires at %v", c.id, v.ExpiresAt)
		}
	}
	if v, _ := f.svc.Get(ctx, acme, "job_pending"); v.ExpiresAt == nil || !v.ExpiresAt.Equal(pending.ReviewSince.Add(ttl)) {
		t.Errorf("a pending review expires at %v, want its start plus the TTL", v.ExpiresAt)
	}

	if _, err := f.svc.Get(ctx, acme, "job_plain"); domain.CodeOf(err) != domain.CodeNotFound || !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a job that never stopped for a review: %v, want not_found", err)
	}
	for _, id := range []string{"job_foreign", "job_nope"} {
		if _, err := f.svc.Get(ctx, acme, id); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("%s: %v, want not found", id, err)
		}
	}
}

func TestService_Get_defaultTTL(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	j := f.awaiting("job_1", "", `{"review":true}`, header, ann)
	v, err := f.svc.Get(context.Background(), acme, "job_1")
	if err != nil {
		t.Fatal(err)
	}
	if v.ExpiresAt == nil || !v.ExpiresAt.Equal(j.ReviewSince.Add(7*24*time.Hour)) {
		t.Fatalf("expires at %v, want a week after %v", v.ExpiresAt, j.ReviewSince)
	}
}

func TestService_PatchMapping(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a column goes to the field asked, and the review is computed again", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "", `{"review":true}`, header, ann, bob)
		if c := column(t, f.job("job_1"), "Flag"); fieldOf(c) != "-" {
			t.Fatalf("Flag maps to %s before the change", fieldOf(c))
		}
		v, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Flag": ptr("active")})
		if err != nil {
			t.Fatal(err)
		}
		j := f.job("job_1")
		if v.Status != StatusPending || j.Status != job.AwaitingReview || fmt.Sprint(mappingOf(t, j)) != "map[Flag:active]" {
			t.Fatalf("view %s, job %s, mapping %v", v.Status, j.Status, mappingOf(t, j))
		}
		if got := fieldOf(column(t, j, "Flag")) + " " + fieldOf(column(t, j, "Name")) + " " + fieldOf(column(t, j, "E-Mail")); got !=
			"active/explicit name/normalized email/normalized" {
			t.Fatalf("columns %s", got)
		}
		if !strings.Contains(string(j.Mapping), `"source_column":"Flag","field":"active"`) {
			t.Fatalf("the job's mapping was not revised: %s", j.Mapping)
		}
		if len(v.Review.Columns) != 3 || fieldOf(v.Review.Columns[2]) != "active/explicit" {
			t.Fatalf("the view shows %+v", v.Review.Columns)
		}
	})

	t.Run("null ignores a column; a required field left unmapped blocks", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "", `{"review":true}`, header, ann)
		v, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Name": nil})
		if err != nil {
			t.Fatal(err)
		}
		j := f.job("job_1")
		if c := column(t, j, "Name"); !c.Ignored || c.Field != nil {
			t.Fatalf("Name: %+v", c)
		}
		if m := mappingOf(t, j); len(m) != 1 || m["Name"] != "" {
			t.Fatalf("mapping %v", m)
		}
		if len(v.Review.Blocking) != 1 || v.Review.Blocking[0].Code != domain.CodeRequiredFieldUnmapped || *v.Review.Blocking[0].Field != "name" {
			t.Fatalf("blocking %+v", v.Review.Blocking)
		}
	})

	t.Run("a field given to a column leaves the column of the same file that had it", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "", `{"review":true}`, header, ann)
		if _, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"E-Mail": ptr("name")}); err != nil {
			t.Fatal(err)
		}
		if j := f.job("job_1"); fieldOf(column(t, j, "E-Mail")) != "name/explicit" || fmt.Sprint(mappingOf(t, j)) != "map[E-Mail:name]" {
			t.Fatalf("E-Mail %s, mapping %v", fieldOf(column(t, j, "E-Mail")), mappingOf(t, j))
		}
		if _, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Name": ptr("name")}); err != nil {
			t.Fatal(err)
		}
		j := f.job("job_1")
		if fmt.Sprint(mappingOf(t, j)) != "map[Name:name]" || fieldOf(column(t, j, "Name")) != "name/explicit" ||
			fieldOf(column(t, j, "E-Mail")) != "email/normalized" {
			t.Fatalf("mapping %v, Name %s, E-Mail %s", mappingOf(t, j), fieldOf(column(t, j, "Name")), fieldOf(column(t, j, "E-Mail")))
		}
	})

	t.Run("the saved schema's learned mappings apply", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "sch_people", `{"review":true}`, header, ann)
		f.mu.Lock()
		f.learned["sch_people/flag"] = "active"
		f.mu.Unlock()
		if _, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"E-Mail": ptr("email")}); err != nil {
			t.Fatal(err)
		}
		if c := column(t, f.job("job_1"), "Flag"); fieldOf(c) != "active/learned" {
			t.Fatalf("Flag maps to %s, want the learned field", fieldOf(c))
		}
	})

	t.Run("wrong columns and fields are 422 invalid_mapping, by column, and change nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		before := f.awaiting("job_1", "", `{"review":true}`, header, ann)
		_, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Nope": ptr("name"), "Flag": ptr("colour"), "Name": ptr("email"),
			"E-Mail": ptr("email")})
		if domain.CodeOf(err) != domain.CodeInvalidMapping || !errors.Is(err, domain.ErrInvalid) || fieldsOf(err) != "mapping.Flag,mapping.Name,mapping.Nope" {
			t.Fatalf("error %v (fields %s)", err, fieldsOf(err))
		}
		if after := f.job("job_1"); string(after.Options) != string(before.Options) || !reflect.DeepEqual(after.Review, before.Review) {
			t.Fatal("a refused change changed the job")
		}
	})

	t.Run("a job not awaiting its review is 409", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		j := f.awaiting("job_1", "", `{"review":true}`, header, ann)
		j.Status = job.Queued
		f.put(j)
		_, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Flag": ptr("active")})
		if domain.CodeOf(err) != domain.CodeJobNotAwaitingReview || !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("error %v", err)
		}
		if _, err := f.svc.PatchMapping(ctx, acme, "job_nope", nil); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("an unknown job: %v", err)
		}
	})

	t.Run("a job whose sample is gone, or without a schema, is an error, not a review", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		before := f.awaiting("job_1", "", `{"review":true}`, header, ann)
		f.mu.Lock()
		delete(f.blobMap, jobs.SampleKey(acme.OrgID, "job_1"))
		f.mu.Unlock()
		if _, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Flag": ptr("active")}); err == nil || !strings.Contains(err.Error(), "sample of job job_1") {
			t.Fatalf("error %v", err)
		}
		if string(f.job("job_1").Options) != string(before.Options) {
			t.Fatal("the job changed")
		}
		noSchema := before
		noSchema.ID, noSchema.Schema = "job_2", nil
		f.put(noSchema)
		if _, err := f.svc.PatchMapping(ctx, acme, "job_2", map[string]*string{"Flag": ptr("active")}); err == nil {
			t.Fatal("a review without a schema took a change")
		}
	})

	t.Run("a job that left review meanwhile is 409", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "", `{"review":true}`, header, ann)
		f.beforeUpdate = func(j *job.Job) { j.Status = job.Queued } // confirmed between the check and the update
		_, err := f.svc.PatchMapping(ctx, acme, "job_1", map[string]*string{"Flag": ptr("active")})
		if domain.CodeOf(err) != domain.CodeJobNotAwaitingReview {
			t.Fatalf("error %v", err)
		}
		if m := mappingOf(t, f.job("job_1")); len(m) != 0 {
			t.Fatalf("mapping %v", m)
		}
	})
}

func TestCheckChanges(t *testing.T) {
	t.Parallel()
	sch, err := schema.Parse([]byte(peopleSchema))
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string][]int{"A": {0}, "B": {0, 1}, "C": {1}}
	cases := []struct {
		changes map[string]*string
		want    string // the fields of the problems
	}{
		{map[string]*string{"A": ptr("name"), "C": ptr("name"), "D": nil}, "mapping.D"}, // one field for columns of two files is fine
		{map[string]*string{"A": ptr("name"), "B": ptr("name")}, "mapping.B"},           // B shares A's file
		{map[string]*string{"B": ptr("email"), "C": ptr("email")}, "mapping.C"},         // C shares B's second file
		{map[string]*string{"A": ptr("colour"), "B": ptr(""), "C": nil}, "mapping.A"},   // "" and null ignore a column
	}
	for _, c := range cases {
		columns := make([]string, 0, len(c.changes))
		for col := range c.changes {
			columns = append(columns, col)
		}
		slices.Sort(columns)
		var got []string
		for _, e := range checkChanges(headers, sch, c.changes, columns) {
			got = append(got, e.Field)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%v: problems at %v, want %s", columns, got, c.want)
		}
	}
}

func TestApplyChanges(t *testing.T) {
	t.Parallel()
	headers := map[string][]int{"A": {0}, "B": {0, 1}, "C": {1}, "D": {2}}
	mapping := normalize.Mapping{"A": "name", "C": "name", "D": "name", "E": "email"}
	applyChanges(mapping, headers, map[string]*string{"B": ptr("name")}, []string{"B"})
	if fmt.Sprint(mapping) != "map[B:name D:name E:email]" {
		t.Fatalf("a field given to B leaves the columns of B's files, only: %v", mapping)
	}
	applyChanges(mapping, headers, map[string]*string{"B": nil, "E": ptr("")}, []string{"B", "E"})
	if fmt.Sprint(mapping) != "map[B: D:name E:]" {
		t.Fatalf("null and \"\" ignore a column: %v", mapping)
	}
}

func TestService_Confirm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("the job is queued with the reviewed mapping, and learns it for its saved schema", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "sch_people", `{"review":true,"mapping":{"Flag":"active"}}`, append(slices.Clone(header), "Notes"), append(slices.Clone(ann), "n"))
		out, err := f.svc.Confirm(ctx, acme, "job_1")
		if err != nil {
			t.Fatal(err)
		}
		j := f.job("job_1")
		if out.Status != job.Queued || j.Status != job.Queued || j.ReviewedAt == nil || !j.ReviewedAt.Equal(now) || j.Attempts != 0 || j.Progress.RowsRead != 0 ||
			j.Progress.BytesTotal != 100 {
			t.Fatalf("returned %s, stored %+v", out.Status, j)
		}
		if m := fmt.Sprint(mappingOf(t, j)); m != "map[E-Mail:email Flag:active Name:name Notes:]" {
			t.Fatalf("the confirmed mapping is %s", m)
		}
		if l := fmt.Sprint(f.learnedNow()); l != "map[sch_people/email:email sch_people/flag:active sch_people/name:name]" {
			t.Fatalf("learned %s", l)
		}
		if ev, q := f.eventsOf("job_1"), f.queuedJobs(); ev != job.EventQueued || fmt.Sprint(q) != "[job_1]" {
			t.Fatalf("events %s, queued %v", ev, q)
		}
		if v, err := f.svc.Get(ctx, acme, "job_1"); err != nil || v.Status != StatusConfirmed || v.ExpiresAt != nil {
			t.Fatalf("the review is %+v, %v", v.Status, err)
		}
	})

	t.Run("without a saved schema nothing is learned", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "", `{"review":true}`, header, ann)
		if _, err := f.svc.Confirm(ctx, acme, "job_1"); err != nil {
			t.Fatal(err)
		}
		if f.job("job_1").Status != job.Queued || len(f.learnedNow()) != 0 {
			t.Fatalf("status %s, learned %v", f.job("job_1").Status, f.learnedNow())
		}
	})

	t.Run("a review with blocking problems is refused, and the job still awaits it", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "sch_people", `{"review":true,"mapping":{"Name":null}}`, header, ann)
		_, err := f.svc.Confirm(ctx, acme, "job_1")
		if domain.CodeOf(err) != domain.CodeRequiredFieldUnmapped || fieldsOf(err) != "mapping.name" {
			t.Fatalf("error %v (fields %s)", err, fieldsOf(err))
		}
		if j := f.job("job_1"); j.Status != job.AwaitingReview || j.ReviewedAt != nil || len(f.queuedJobs()) != 0 || f.eventsOf("job_1") != "" ||
			len(f.learnedNow()) != 0 {
			t.Fatalf("job %s, queued %v, events %q, learned %v", j.Status, f.queuedJobs(), f.eventsOf("job_1"), f.learnedNow())
		}
	})

	t.Run("a job not awaiting its review is 409, an unknown one 404", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		j := f.awaiting("job_1", "", `{"review":true}`, header, ann)
		j.Status = job.Canceled
		f.put(j)
		if _, err := f.svc.Confirm(ctx, acme, "job_1"); domain.CodeOf(err) != domain.CodeJobNotAwaitingReview {
			t.Fatalf("error %v", err)
		}
		if _, err := f.svc.Confirm(ctx, acme, "job_nope"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("error %v", err)
		}
		if len(f.queuedJobs()) != 0 {
			t.Fatal("a job was queued")
		}
	})

	t.Run("a job that left review meanwhile is 409", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "", `{"review":true}`, header, ann)
		f.beforeUpdate = func(j *job.Job) { j.Status = job.Canceled }
		if _, err := f.svc.Confirm(ctx, acme, "job_1"); domain.CodeOf(err) != domain.CodeJobNotAwaitingReview {
			t.Fatalf("error %v", err)
		}
		if len(f.queuedJobs()) != 0 {
			t.Fatal("a job was queued")
		}
	})

	t.Run("an organization with its most jobs queued is refused, and the job still awaits", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "sch_people", `{"review":true}`, header, ann)
		f.pending = 1000
		if _, err := f.svc.Confirm(ctx, acme, "job_1"); domain.CodeOf(err) != domain.CodeQuotaExceeded {
			t.Fatalf("error %v", err)
		}
		if j := f.job("job_1"); j.Status != job.AwaitingReview || len(f.learnedNow()) != 0 {
			t.Fatalf("job %s, learned %v", j.Status, f.learnedNow())
		}
	})

	t.Run("a mapping that cannot be learned undoes the confirmation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		f.awaiting("job_1", "sch_people", `{"review":true}`, header, ann)
		f.failPut = errors.New("the database is down")
		if _, err := f.svc.Confirm(ctx, acme, "job_1"); !errors.Is(err, f.failPut) {
			t.Fatalf("error %v", err)
		}
		if j := f.job("job_1"); j.Status != job.AwaitingReview || j.ReviewedAt != nil || len(f.queuedJobs()) != 0 || f.eventsOf("job_1") != "" {
			t.Fatalf("job %s, queued %v, events %q", j.Status, f.queuedJobs(), f.eventsOf("job_1"))
		}
	})
}

func TestService_Expire(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// since stores an awaiting job whose review started at t.
	since := func(f *fixture, id string, at time.Time) {
		j := f.awaiting(id, "", `{"review":true}`, header, ann)
		j.ReviewSince = &at
		f.put(j)
	}

	t.Run("the reviews past the TTL are canceled with review_expired; the others stay", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		since(f, "job_old", now.Add(-ttl-time.Hour))
		since(f, "job_due", now.Add(-ttl)) // exactly the TTL: due
		since(f, "job_fresh", now.Add(-time.Hour))
		confirmed := f.awaiting("job_confirmed", "", `{"review":true}`, header, ann)
		confirmed.Status = job.Queued
		f.put(confirmed)
		// The listing is a snapshot: the fresh and confirmed jobs and a deleted one changed since.
		f.reviews.EXPECT().AwaitingSince(mock.Anything, now.Add(-ttl), 500).Return([][2]string{
			{"org_acme", "job_old"}, {"org_acme", "job_fresh"}, {"org_acme", "job_gone"}, {"org_acme", "job_confirmed"}, {"org_acme", "job_due"}}, nil).Once()
		n, err := f.svc.Expire(ctx)
		if err != nil || n != 2 {
			t.Fatalf("expired %d, %v; want 2", n, err)
		}
		for _, id := range []string{"job_old", "job_due"} {
			j := f.job(id)
			if j.Status != job.Canceled || j.Failure == nil || j.Failure.Code != job.ReviewExpired || !strings.Contains(j.Failure.Message, "2 days") ||
				j.FinishedAt == nil || !j.FinishedAt.Equal(now) || f.eventsOf(id) != job.EventCanceled {
				t.Errorf("%s: %+v, events %q", id, j, f.eventsOf(id))
			}
			if v, err := f.svc.Get(ctx, acme, id); err != nil || v.Status != StatusExpired {
				t.Errorf("%s: review %s, %v", id, v.Status, err)
			}
		}
		if f.job("job_fresh").Status != job.AwaitingReview || f.job("job_confirmed").Status != job.Queued || f.eventsOf("job_fresh") != "" ||
			f.eventsOf("job_confirmed") != "" {
			t.Error("a job the listing no longer describes was expired")
		}
	})

	t.Run("the default TTL is a week", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{})
		f.reviews.EXPECT().AwaitingSince(mock.Anything, now.Add(-DefaultTTL), 500).Return(nil, nil).Once()
		if n, err := f.svc.Expire(ctx); n != 0 || err != nil {
			t.Fatalf("%d, %v", n, err)
		}
	})

	t.Run("a listing that fails is the error", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		down := errors.New("the database is down")
		f.reviews.EXPECT().AwaitingSince(mock.Anything, mock.Anything, 500).Return(nil, down).Once()
		if n, err := f.svc.Expire(ctx); n != 0 || !errors.Is(err, down) {
			t.Fatalf("%d, %v", n, err)
		}
	})

	t.Run("an expiry whose event cannot be stored is undone, and the count says what was done", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, Config{TTL: ttl})
		since(f, "job_old", now.Add(-ttl-time.Hour))
		f.failKind = job.EventCanceled
		f.reviews.EXPECT().AwaitingSince(mock.Anything, mock.Anything, 500).Return([][2]string{{"org_acme", "job_old"}}, nil).Once()
		n, err := f.svc.Expire(ctx)
		if n != 0 || err == nil || !strings.Contains(err.Error(), "job_old") {
			t.Fatalf("%d, %v", n, err)
		}
		if j := f.job("job_old"); j.Status != job.AwaitingReview || j.Failure != nil {
			t.Fatalf("the job is %s after a failed expiry", j.Status)
		}
	})
}
