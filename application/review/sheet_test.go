package review

import (
	"context"
	"errors"
	"testing"

	"github.com/tabnorm/tabnorm/domain/job"
)

// TestService_keepSample: the sample a review's change keeps is the one
// its next change reads; a store that cannot take it says so.
func TestService_keepSample(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, Config{})
	j := job.Job{ID: "job_1", OrgID: acme.OrgID}
	if err := f.svc.keepSample(ctx, j.OrgID, j.ID, []byte(`[{"Header":["a"]}]`)); err != nil {
		t.Fatal(err)
	}
	if b, err := f.svc.sampleBytes(ctx, j); err != nil || string(b) != `[{"Header":["a"]}]` {
		t.Fatalf("sampleBytes = %s, %v", b, err)
	}
	f.createErr = errors.New("the store is full")
	if err := f.svc.keepSample(ctx, j.OrgID, j.ID, []byte(`[]`)); !errors.Is(err, f.createErr) {
		t.Fatalf("keepSample on a full store: %v", err)
	}
}
