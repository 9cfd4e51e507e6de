package httpapi

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// TestExportLanes_smallResultsNeverWaitBehindBigOnes: a result of up to
// smallExportRows rows is built in a lane of its own, so another
// organization's big builds, holding every slot of theirs, do not delay
// it; one organization holds at most its share of the big lane.
func TestExportLanes_smallResultsNeverWaitBehindBigOnes(t *testing.T) {
	t.Parallel()
	lanes := newExportLanes()
	big := job.Job{OrgID: "org_a", Result: &job.Result{RowCount: 4_000_000, RejectedCount: 1_000_000}}
	small := job.Job{OrgID: "org_b", Result: &job.Result{RowCount: 1}}
	if lanes.lane(big) != lanes.big || lanes.lane(small) != lanes.small {
		t.Fatal("a result's lane is not chosen by its rows")
	}
	ctx := context.Background()
	held, err := lanes.lane(big).Acquire(ctx, big.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := lanes.lane(big).Acquire(short, big.OrgID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("one organization took a second slot of the big lane: %v", err)
	}
	other := big
	other.OrgID = "org_c"
	release, err := lanes.lane(other).Acquire(ctx, other.OrgID) // another organization's big build
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	begun := time.Now()
	release, err = lanes.lane(small).Acquire(ctx, small.OrgID)
	if err != nil || time.Since(begun) > testtime.Scale(time.Second) {
		t.Fatalf("a 1-row export waited %v behind the big lane: %v", time.Since(begun), err)
	}
	release()
}

// TestIdleDeadline_aClientThatReadsNothingIsCutOff: a download to a client
// that stops reading fails its write once the idle time passes, so the
// handler ends and lets go of what it holds; a client that reads gets it
// all.
func TestIdleDeadline_aClientThatReadsNothingIsCutOff(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("0123456789abcdef"), 4<<20) // 64 MiB: more than the sockets hold
	ended := make(chan error, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(idleDeadlineWriter(w, 300*time.Millisecond), r, "", time.Time{}, bytes.NewReader(body))
		_, err := w.Write([]byte{0}) // after the cut, the connection is gone
		ended <- err
	}))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	select { // reads nothing
	case err := <-ended:
		if err == nil {
			t.Fatal("the download to a client that reads nothing did not fail")
		}
	case <-time.After(testtime.Scale(10 * time.Second)):
		t.Fatal("the handler still writes to a client that reads nothing")
	}

	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got bytes.Buffer
	if _, err := got.ReadFrom(res.Body); err != nil || got.Len() != len(body) {
		t.Fatalf("a reading client got %d of %d bytes: %v", got.Len(), len(body), err)
	}
}
