package jobs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
)

func TestDispatcher_Dispatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, jobs.Config{MaxRunningPerOrg: 2})
	f.slots.EXPECT().OrgsWaiting(mock.Anything, 1000).Return([]string{"org_a", "org_b"}, nil).Once()
	f.slots.EXPECT().Counts(mock.Anything, "org_a").Return(1, 5, nil).Once() // one free slot
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_a").Return("job_a1", nil).Once()
	f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_a1", 1).Return(nil).Once()
	f.slots.EXPECT().Counts(mock.Anything, "org_b").Return(0, 1, nil).Once() // one waits
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_b").Return("job_b1", nil).Once()
	f.queue.EXPECT().Enqueue(mock.Anything, mock.Anything, "job_b1", 0).Return(nil).Once()
	f.slots.EXPECT().NextWaiting(mock.Anything, "org_b").Return("", nil).Once()
	if n, err := f.dispatch.Dispatch(ctx); n != 2 || err != nil {
		t.Fatalf("Dispatch = %d, %v", n, err)
	}
}
