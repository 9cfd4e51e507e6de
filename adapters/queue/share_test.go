package queue_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// hog holds every job and delivery whose id starts with "a" until the
// test ends, as a CPU-bound job and an endpoint that never answers do,
// and reports the others as they run. It counts the most of "a"'s held
// at once.
type hog struct {
	mu                 sync.Mutex
	jobs, deliveries   int
	mostJobs, mostDlvs int
	release            chan struct{}
	ran                chan string
}

func newHog() *hog { return &hog{release: make(chan struct{}), ran: make(chan string, 64)} }

func (h *hog) hold(ctx context.Context, n, most *int) {
	h.mu.Lock()
	*n++
	*most = max(*most, *n)
	h.mu.Unlock()
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	h.mu.Lock()
	*n--
	h.mu.Unlock()
}

func (h *hog) RunJob(ctx context.Context, jobID string) error {
	if strings.HasPrefix(jobID, "a") {
		h.hold(ctx, &h.jobs, &h.mostJobs)
		return nil
	}
	h.ran <- jobID
	return nil
}

func (h *hog) Deliver(ctx context.Context, deliveryID string, _ int) error {
	if strings.HasPrefix(deliveryID, "a") {
		h.hold(ctx, &h.deliveries, &h.mostDlvs)
		return nil
	}
	h.ran <- deliveryID
	return nil
}

func (h *hog) Sweep(context.Context) (int, error) { return 0, nil }

func (h *hog) most() (jobs, deliveries int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mostJobs, h.mostDlvs
}

// TestWorkers_fairShare: an organization whose jobs never end and whose
// endpoints never answer holds neither every job worker of a node nor any
// of them with its deliveries (they have workers of their own): another
// organization's job still runs at once. (The webhooks service bounds an
// organization's share of the delivery workers.)
func TestWorkers_fairShare(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			fairShare(t, openDB(t, kind.New(t)))
		})
	}
}

func fairShare(t *testing.T, db *sqlstore.DB) {
	h := newHog()
	q := startHog(t, db, h)
	tx := sqlstore.NewTransactor(db)
	hogIDs := []string{"a_dlv1", "a_dlv2", "a_dlv3", "a_dlv4", "a_dlv5", "a_dlv6", "a_dlv7", "a_dlv8", "a_job1", "a_job2", "a_job3"}
	enqueue(t, tx, q, "org_a", hogIDs...)
	waitFor(t, "org_a to hold a job worker", func() bool { j, _ := h.most(); return j > 0 })
	start := time.Now()
	enqueue(t, tx, q, "org_b", "b_job")
	seen := map[string]bool{}
	for deadline := testtime.After(5 * time.Second); len(seen) < 1; {
		select {
		case id := <-h.ran:
			seen[id] = true
		case <-deadline:
			t.Fatalf("org_b's job did not run within 5 s (ran: %v)", seen)
		}
	}
	t.Logf("org_b's job ran %s after it was queued", time.Since(start).Round(time.Millisecond))
	if jobs, dlvs := h.most(); jobs > 1 || dlvs > 3 {
		t.Fatalf("org_a held %d job workers (most 1 of 2) and %d delivery workers (there are 3)", jobs, dlvs)
	}
}

// startHog runs 2 job workers and 3 delivery workers with h as runner and
// deliverer.
func startHog(t *testing.T, db *sqlstore.DB, h *hog) *queue.Inserter {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	q, err := queue.NewInserter(db, log)
	if err != nil {
		t.Fatal(err)
	}
	w, err := queue.NewWorkers(db, queue.Config{Workers: 2, JobTimeout: time.Minute, WebhookWorkers: 3}, h, nil, h, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(h.release)
		_ = w.Stop(context.Background())
	})
	return q
}

// enqueue queues the organization's entries, a delivery for an id with
// "dlv" in it and a job for the others, in one transaction.
func enqueue(t *testing.T, tx *sqlstore.Transactor, q *queue.Inserter, orgID string, ids ...string) {
	t.Helper()
	err := tx.InTx(context.Background(), func(ctx context.Context) error {
		for _, id := range ids {
			var err error
			if strings.Contains(id, "dlv") {
				err = q.EnqueueDelivery(ctx, orgID, id, 1, time.Now())
			} else {
				err = q.Enqueue(ctx, orgID, id, 0)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds, for up to 15 s (scaled).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := testtime.Deadline(15 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
	}
}
