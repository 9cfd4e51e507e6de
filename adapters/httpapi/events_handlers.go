package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// keepAlive is how often an idle stream gets a comment line; safetyRead is
// how often it reads the store even without a notice.
const (
	keepAlive  = 15 * time.Second
	safetyRead = 5 * time.Second
)

var errInvalidLastEventID = domain.Invalid("Last-Event-ID must be an event id (a whole number).")

func terminal(kind string) bool {
	return kind == job.EventSucceeded || kind == job.EventFailed || kind == job.EventCanceled
}

// jobEvents streams a job's events as Server-Sent Events: the stored
// history after Last-Event-ID first, then new events as they are stored,
// until the terminal event.
func (a *API) jobEvents(c *gin.Context) {
	ctx := c.Request.Context()
	p := principal(c)
	jobID := c.Param("id")
	last := 0
	if h := c.GetHeader("Last-Event-ID"); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil || n < 0 {
			fail(c, errInvalidLastEventID)
			return
		}
		last = n
	}
	// Follow before reading the history, so nothing falls in between.
	live, unfollow := a.deps.Jobs.Follow(jobID, last)
	defer unfollow()
	history, err := a.deps.Jobs.Events(ctx, p, jobID, last)
	if err != nil {
		fail(c, err)
		return
	}
	rc := http.NewResponseController(c.Writer)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream lasts as long as its job
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	a.observer.Subscribed(1)
	defer a.observer.Subscribed(-1)
	write := func(evs []ports.Event) (done bool) {
		for _, ev := range evs {
			fmt.Fprintf(c.Writer, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Kind, ev.Data)
			last = ev.Seq
			if terminal(ev.Kind) {
				done = true
			}
		}
		_ = rc.Flush()
		return done
	}
	if write(history) {
		return
	}
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	safety := time.NewTicker(safetyRead)
	defer safety.Stop()
	for {
		var evs []ports.Event
		catchUp := false
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			fmt.Fprint(c.Writer, ": keep-alive\n\n")
			_ = rc.Flush()
			continue
		case shared := <-live:
			// Events read once for every stream on this node; only a gap
			// (this stream fell behind) sends it to the store itself.
			if len(shared) == 0 || shared[0].Seq > last+1 {
				catchUp = true
				break
			}
			for _, ev := range shared {
				if ev.Seq > last {
					evs = append(evs, ev)
				}
			}
		case <-safety.C:
			catchUp = true
		}
		if catchUp {
			var err error
			if evs, err = a.deps.Jobs.Events(ctx, p, jobID, last); err != nil {
				return // the job was deleted, or the store is gone: end the stream
			}
		}
		if write(evs) {
			return
		}
	}
}
