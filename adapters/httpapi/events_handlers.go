package httpapi

import (
	"fmt"
	"io"
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
// until the terminal event. Each stream holds a slot of its credential,
// organization and node (streams.go) until it ends.
func (a *API) jobEvents(c *gin.Context) {
	ctx := c.Request.Context()
	p := principal(c)
	jobID := c.Param("id")
	last, err := lastEventID(c)
	if err != nil {
		fail(c, err)
		return
	}
	release, err := a.streams.take(p)
	if err != nil {
		fail(c, err)
		return
	}
	defer release()
	// Follow before reading the history, so nothing falls in between.
	live, unfollow := a.deps.JobReader.Follow(jobID, last)
	defer unfollow()
	history, err := a.deps.JobReader.Events(ctx, p, jobID, last)
	if err != nil {
		fail(c, err)
		return
	}
	s := &sseStream{w: c.Writer, rc: http.NewResponseController(c.Writer), last: last}
	_ = s.rc.SetWriteDeadline(time.Time{}) // a stream lasts as long as its job
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	if c.Request.Method == http.MethodHead { // the stream's header, and no stream
		return
	}
	a.observer.Subscribed(1)
	defer a.observer.Subscribed(-1)
	if s.write(history) {
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
			s.ping()
			continue
		case shared := <-live:
			// Events read once for every stream on this node; only a gap
			// (this stream fell behind) sends it to the store itself.
			evs, catchUp = s.newer(shared)
		case <-safety.C:
			catchUp = true
		}
		if catchUp {
			if evs, err = a.deps.JobReader.Events(ctx, p, jobID, s.last); err != nil {
				return // the job was deleted, or the store is gone: end the stream
			}
		}
		if s.write(evs) {
			return
		}
	}
}

// lastEventID is the Last-Event-ID a reconnecting client sends: the seq
// of the last event it has, 0 without one.
func lastEventID(c *gin.Context) (int, error) {
	h := c.GetHeader("Last-Event-ID")
	if h == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(h)
	if err != nil || n < 0 {
		return 0, errInvalidLastEventID
	}
	return n, nil
}

// sseStream writes a job's events to one client, each once and in order.
type sseStream struct {
	w    io.Writer
	rc   *http.ResponseController
	last int // the seq of the last event written
}

// write sends the events and reports whether the terminal one was among
// them. A failed write ends nothing here: the request's context does.
func (s *sseStream) write(evs []ports.Event) (done bool) {
	for _, ev := range evs {
		fmt.Fprintf(s.w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Kind, ev.Data)
		s.last = ev.Seq
		if terminal(ev.Kind) {
			done = true
		}
	}
	_ = s.rc.Flush()
	return done
}

func (s *sseStream) ping() {
	fmt.Fprint(s.w, ": keep-alive\n\n")
	_ = s.rc.Flush()
}

// newer returns the shared events this stream has not written; gap when
// they do not follow on from its last one (it must read the store).
func (s *sseStream) newer(shared []ports.Event) (evs []ports.Event, gap bool) {
	if len(shared) == 0 || shared[0].Seq > s.last+1 {
		return nil, true
	}
	for _, ev := range shared {
		if ev.Seq > s.last {
			evs = append(evs, ev)
		}
	}
	return evs, false
}
