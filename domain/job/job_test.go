package job

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
)

var now = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// TestTransitions is the exhaustive table: every event from every status.
func TestTransitions(t *testing.T) {
	t.Parallel()
	events := map[string]func(*Job) error{
		"start":   func(j *Job) error { return j.Start(now) },
		"succeed": func(j *Job) error { return j.Succeed(now, Result{}) },
		"fail":    func(j *Job) error { return j.Fail(now, Failure{Code: "unreadable_file"}) },
		"cancel":  func(j *Job) error { return j.Cancel(now) },
		"requeue": func(j *Job) error { _, err := j.Requeue(now); return err },
		"await":   func(j *Job) error { return j.AwaitReview(now, review.Review{}, []byte(`[]`)) },
		"revise":  func(j *Job) error { return j.Revise(review.Review{}, []byte(`[]`)) },
		"confirm": func(j *Job) error { return j.ConfirmReview(now) },
		"expire":  func(j *Job) error { return j.ExpireReview(now, time.Hour) },
	}
	// want[from][event] = resulting status, or "" when the move is refused.
	want := map[Status]map[string]Status{
		Queued:         {"start": Running, "succeed": "", "fail": "", "cancel": Canceled, "requeue": "", "await": "", "revise": "", "confirm": "", "expire": ""},
		Running:        {"start": "", "succeed": Succeeded, "fail": Failed, "cancel": Canceled, "requeue": Queued, "await": AwaitingReview, "revise": "", "confirm": "", "expire": ""},
		AwaitingReview: {"start": "", "succeed": "", "fail": "", "cancel": Canceled, "requeue": "", "await": "", "revise": AwaitingReview, "confirm": Queued, "expire": Canceled},
		Succeeded:      {"start": "", "succeed": "", "fail": "", "cancel": "", "requeue": "", "await": "", "revise": "", "confirm": "", "expire": ""},
		Failed:         {"start": "", "succeed": "", "fail": "", "cancel": "", "requeue": "", "await": "", "revise": "", "confirm": "", "expire": ""},
		Canceled:       {"start": "", "succeed": "", "fail": "", "cancel": "", "requeue": "", "await": "", "revise": "", "confirm": "", "expire": ""},
	}
	if len(want) != len(Statuses) {
		t.Fatal("table does not cover every status")
	}
	for _, from := range Statuses {
		for name, event := range events {
			t.Run(fmt.Sprintf("%s_%s", from, name), func(t *testing.T) { checkTransition(t, from, name, event, want[from][name]) })
		}
	}
}

// checkTransition applies event to a job in status from: it must end in
// status to, or be refused as a conflict that changes nothing when to is "".
func checkTransition(t *testing.T, from Status, name string, event func(*Job) error, to Status) {
	t.Helper()
	since := now.Add(-2 * time.Hour)
	j := &Job{Status: from, Attempts: 1, ReviewSince: &since}
	err := event(j)
	if to == "" {
		if err == nil {
			t.Fatalf("%s from %s allowed, now %s", name, from, j.Status)
		}
		if !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("refusal is not a conflict: %v", err)
		}
		if j.Status != from {
			t.Fatalf("refused move changed status to %s", j.Status)
		}
		if name == "cancel" && domain.CodeOf(err) != "job_not_cancelable" {
			t.Fatalf("cancel of %s: code %q", from, domain.CodeOf(err))
		}
		if (name == "revise" || name == "confirm") && domain.CodeOf(err) != "job_not_awaiting_review" {
			t.Fatalf("%s of %s: code %q", name, from, domain.CodeOf(err))
		}
		return
	}
	if err != nil || j.Status != to {
		t.Fatalf("%s from %s = %s, %v; want %s", name, from, j.Status, err, to)
	}
	if to.Terminal() && (j.FinishedAt == nil || !j.FinishedAt.Equal(now)) {
		t.Fatalf("terminal without finished_at")
	}
}

func TestRequeue_failsAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	j := &Job{Status: Queued, Progress: Progress{BytesTotal: 100}}
	for attempt := 1; attempt <= MaxAttempts; attempt++ {
		if err := j.Start(now); err != nil {
			t.Fatal(err)
		}
		j.Progress.RowsRead = 50
		again, err := j.Requeue(now)
		if err != nil {
			t.Fatal(err)
		}
		if attempt < MaxAttempts {
			if !again || j.Status != Queued || j.Progress.RowsRead != 0 || j.Progress.BytesTotal != 100 {
				t.Fatalf("attempt %d: again=%v status=%s progress=%+v", attempt, again, j.Status, j.Progress)
			}
			continue
		}
		if again || j.Status != Failed || j.Failure == nil || j.Failure.Code != "worker_lost" {
			t.Fatalf("after %d attempts: again=%v %s %+v", attempt, again, j.Status, j.Failure)
		}
	}
	if j.Attempts != MaxAttempts {
		t.Fatalf("attempts = %d", j.Attempts)
	}
}

func TestStartKeepsFirstStartTime(t *testing.T) {
	t.Parallel()
	j := &Job{Status: Queued}
	_ = j.Start(now)
	_, _ = j.Requeue(now.Add(time.Minute))
	_ = j.Start(now.Add(2 * time.Minute))
	if !j.StartedAt.Equal(now) || j.Attempts != 2 {
		t.Fatalf("started_at %v attempts %d", j.StartedAt, j.Attempts)
	}
}

func TestProgressPercent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p    Progress
		want float64
	}{
		{Progress{}, 0},
		{Progress{BytesRead: 1, BytesTotal: 3}, 33.3},
		{Progress{BytesRead: 5, BytesTotal: 3}, 100},
	}
	for _, c := range cases {
		if got := c.p.Percent(); got != c.want {
			t.Errorf("%+v: %v, want %v", c.p, got, c.want)
		}
	}
}

// TestReview: a review stops a running job until it is confirmed, which
// queues it as if new, or until it expires, which cancels it saying why.
func TestReview(t *testing.T) {
	t.Parallel()
	j := &Job{Status: Queued, Progress: Progress{BytesTotal: 100}}
	if err := j.Start(now); err != nil {
		t.Fatal(err)
	}
	if err := j.AwaitReview(now, review.Review{UnmappedFields: []string{"a"}}, []byte(`[1]`)); err != nil {
		t.Fatal(err)
	}
	if j.Status != AwaitingReview || j.Review == nil || len(j.Review.UnmappedFields) != 1 || string(j.Mapping) != `[1]` || !j.ReviewSince.Equal(now) || j.FinishedAt != nil {
		t.Fatalf("awaiting: %+v", j)
	}
	ttl := 7 * 24 * time.Hour
	if j.ReviewDue(now.Add(ttl-time.Second), ttl) || !j.ReviewDue(now.Add(ttl), ttl) {
		t.Fatal("due at the wrong time")
	}
	if err := j.ExpireReview(now.Add(time.Hour), ttl); err == nil || j.Status != AwaitingReview {
		t.Fatalf("expired early: %v %s", err, j.Status)
	}
	confirmed := *j
	if err := confirmed.ConfirmReview(now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if confirmed.Status != Queued || confirmed.Attempts != 0 || confirmed.StartedAt != nil || !confirmed.ReviewedAt.Equal(now.Add(time.Minute)) ||
		confirmed.Progress != (Progress{BytesTotal: 100}) {
		t.Fatalf("confirmed: %+v", confirmed)
	}
	if err := j.ExpireReview(now.Add(ttl), ttl); err != nil {
		t.Fatal(err)
	}
	if j.Status != Canceled || j.Failure == nil || j.Failure.Code != ReviewExpired || j.Failure.Message != "Nobody confirmed the job's review within 7 days; it was canceled." ||
		!j.FinishedAt.Equal(now.Add(ttl)) {
		t.Fatalf("expired: %+v %+v", j, j.Failure)
	}
}
