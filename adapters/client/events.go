package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"strings"
)

// Event is one event of a job (API.md §5.5).
type Event struct {
	ID       string          // the stream position, sent back as Last-Event-ID
	Kind     string          // job.queued, job.started, job.progress, job.awaiting_review, job.succeeded, job.failed, job.canceled
	Status   string          `json:"status"`
	Progress Progress        `json:"progress"`
	Job      *Job            `json:"job"` // terminal and job.awaiting_review events carry the whole job
	Data     json.RawMessage // the event's data as sent
}

// Terminal reports whether this is a job's last event.
func (e Event) Terminal() bool {
	return e.Kind == "job.succeeded" || e.Kind == "job.failed" || e.Kind == "job.canceled"
}

// Follow streams a job's events from its first until its terminal event.
// A broken stream is reopened with Last-Event-ID, so no event is lost or
// repeated; it gives up (yielding the error) after the client's retries
// fail in a row, or when ctx ends.
func (c *Client) Follow(ctx context.Context, jobID string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) { c.follow(ctx, jobID, yield) }
}

func (c *Client) follow(ctx context.Context, jobID string, yield func(Event, error) bool) {
	last := ""
	failures := 0
	for {
		h := http.Header{"Accept": {"text/event-stream"}}
		if last != "" {
			h.Set("Last-Event-ID", last)
		}
		res, err := c.do(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/events", header: h})
		if err != nil {
			var perr *Error
			if asError(err, &perr) && perr.Status < 500 && perr.Status != http.StatusTooManyRequests {
				yield(Event{}, err) // 404 and the like: reconnecting will not help
				return
			}
			failures++
			if !c.pause(ctx, failures) {
				yield(Event{}, err)
				return
			}
			continue
		}
		ended, progressed, stop := readEvents(res, &last, yield)
		_ = res.Body.Close()
		if ended || stop {
			return
		}
		if progressed {
			failures = 0
		}
		failures++
		if !c.pause(ctx, failures) {
			if ctx.Err() != nil {
				yield(Event{}, ctx.Err())
			} else {
				yield(Event{}, errStreamLost)
			}
			return
		}
	}
}

// pause waits before reconnecting after failures in a row; false when the
// retries are spent or ctx ended.
func (c *Client) pause(ctx context.Context, failures int) bool {
	return failures <= c.retries && sleep(ctx, c.wait(failures-1, 0)) == nil
}

var errStreamLost = &Error{Code: "stream_lost", Detail: "the event stream kept closing before the job ended"}

// readEvents reads one connection's events: ended after a terminal event,
// progressed when any event came, stop when the consumer stopped.
func readEvents(res *http.Response, last *string, yield func(Event, error) bool) (ended, progressed, stop bool) {
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var ev Event
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Kind == "" && data.Len() == 0 {
				continue
			}
			ev.Data = append(json.RawMessage(nil), data.Bytes()...)
			_ = json.Unmarshal(ev.Data, &ev)
			if ev.Job != nil {
				var raw struct{ Job json.RawMessage }
				_ = json.Unmarshal(ev.Data, &raw)
				ev.Job.Raw = raw.Job
			}
			if ev.ID != "" {
				*last = ev.ID
			}
			progressed = true
			if !yield(ev, nil) {
				return false, true, true
			}
			if ev.Terminal() {
				return true, true, false
			}
			ev, data = Event{}, bytes.Buffer{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id:"):
			ev.ID = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "event:"):
			ev.Kind = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(line[5:], " "))
		}
	}
	return false, progressed, false
}

// Wait follows a job until it ends and returns it as it ended. A job
// awaiting its review does not end until the review is confirmed and the
// job has run (or it is canceled, or the review expires): follow its
// events for job.awaiting_review to act on the review.
func (c *Client) Wait(ctx context.Context, jobID string) (*Job, error) {
	for ev, err := range c.Follow(ctx, jobID) {
		if err != nil {
			return nil, err
		}
		if ev.Terminal() {
			if ev.Job != nil {
				return ev.Job, nil
			}
			return c.GetJob(ctx, jobID)
		}
	}
	return c.GetJob(ctx, jobID)
}
