package jobs_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

// TestReader_Follow: however many streams follow a job on a node, a
// notice costs one read of the store, and every stream gets the events.
func TestReader_Follow(t *testing.T) {
	t.Parallel()
	bus, events := mocks.NewEventBus(t), mocks.NewJobEvents(t)
	notices := make(chan int, 1)
	unsubscribed := make(chan struct{})
	bus.EXPECT().Subscribe("job_1").Return(notices, func() { close(unsubscribed) }).Once()
	stored := []ports.Event{{JobID: "job_1", Seq: 3, Kind: "job.progress"}, {JobID: "job_1", Seq: 4, Kind: "job.progress"}}
	events.EXPECT().After(mock.Anything, "job_1", 2).Return(stored, nil).Once()
	read := jobs.NewReader(mocks.NewJobs(t), events, bus, mocks.NewBlobStore(t), nil, mocks.NewAuditLog(t), mocks.NewClock(t))

	const followers = 50
	chans := make([]<-chan []ports.Event, followers)
	stops := make([]func(), followers)
	for i := range chans {
		chans[i], stops[i] = read.Follow("job_1", 2)
	}
	notices <- 4
	for i, ch := range chans {
		select {
		case got := <-ch:
			if len(got) != 2 || got[0].Seq != 3 || got[1].Seq != 4 {
				t.Fatalf("follower %d got %+v", i, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("follower %d got nothing", i)
		}
	}
	// The subscription ends with the last follower, not before.
	for _, stop := range stops[:followers-1] {
		stop()
	}
	select {
	case <-unsubscribed:
		t.Fatal("unsubscribed while a follower remains")
	default:
	}
	stops[followers-1]()
	select {
	case <-unsubscribed:
	case <-time.After(5 * time.Second):
		t.Fatal("still subscribed after the last follower left")
	}
}
