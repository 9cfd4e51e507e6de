package httpapi_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

// bombs keeps the worker of every job whose file is named bomb*.csv busy
// burning CPU, as a hostile file does, until the test ends or the job's
// context does: the job is claimed, running and holds its worker the
// ordinary way.
type bombs struct {
	running atomic.Int32
	stop    chan struct{}
	once    sync.Once
}

func newBombs(t *testing.T) *bombs {
	b := &bombs{stop: make(chan struct{})}
	t.Cleanup(b.defuse)
	return b
}

func (b *bombs) defuse() { b.once.Do(func() { close(b.stop) }) }

func (b *bombs) wrap(inner ports.TableOpener) ports.TableOpener {
	return bombOpener{TableOpener: inner, b: b}
}

type bombOpener struct {
	ports.TableOpener
	b *bombs
}

func (o bombOpener) Open(ctx context.Context, path, filename string, opts table.ReadOptions) (table.Reader, error) {
	if strings.HasPrefix(filename, "bomb") {
		o.b.running.Add(1)
		defer o.b.running.Add(-1)
		sum := sha256.Sum256([]byte(filename))
		for {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-o.b.stop:
				return o.TableOpener.Open(ctx, path, filename, opts)
			default:
			}
			for range 1000 {
				sum = sha256.Sum256(sum[:])
			}
		}
	}
	return o.TableOpener.Open(ctx, path, filename, opts)
}

// blackhole is a listener that accepts every connection and never
// answers: a webhook endpoint that holds each attempt to its timeout.
type blackhole struct {
	net.Listener
	accepted atomic.Int32
}

func newBlackhole(t *testing.T) *blackhole {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{Listener: l}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
	})
	return b
}

// TestIsolation_hostileOrganization: organization A has 100 webhook
// endpoints that never answer, 2 jobs burning CPU, 200 jobs queued and
// every event stream its key may open, held unread; organization B's
// 1-row job still starts within 5 s and finishes within 10 s, its event
// stream opens and its workbook downloads within 5 s. On SQLite one process runs everything; on PostgreSQL an API
// node and two worker nodes share the database.
func TestIsolation_hostileOrganization(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			hostileOrganization(t, target)
		})
	}
}

func hostileOrganization(t *testing.T, target sqltest.Target) {
	b := newBombs(t)
	blobs := "file://" + t.TempDir() // the nodes share their files
	settings := func(c *bootstrap.Config) {
		c.BlobURL = blobs
		c.WebhookAllowPrivate = true
		c.MaxWebhooksPerOrg = 100
		c.HTTP.RateLimit.PerSecond, c.HTTP.RateLimit.Burst = 10_000, 10_000
	}
	ov := bootstrap.Overrides{Tables: b.wrap}
	var app *apptest.App
	if target.Name == "postgres" {
		app = apptest.StartWith(t, target, bootstrap.RoleAPI, ov, settings)
		for range 2 {
			apptest.StartWith(t, target, bootstrap.RoleWorker, ov, settings)
		}
	} else {
		app = apptest.StartWith(t, target, bootstrap.RoleAll, ov, settings)
	}
	t.Cleanup(b.defuse) // before the nodes stop: a stopping worker waits for its jobs
	hostile, victim := app.Org("Hostile", identity.Normalize), app.Org("Victim", identity.Normalize)
	a, v := apptest.Caller{Key: app.Key(hostile)}, apptest.Caller{Key: app.Key(victim)}

	hole := newBlackhole(t)
	for i := range 100 {
		body := map[string]any{"url": fmt.Sprintf("http://%s/hook/%d", hole.Addr(), i), "events": []string{"job.started", "job.succeeded", "job.failed"}}
		expect(t, app.Do("POST", "/v1/webhooks", a, body), 201, "")
	}
	for i := range 2 {
		expect(t, app.Request(upload(t, app, fmt.Sprintf("bomb%d.csv", i), peopleCSV, map[string]string{"schema": peopleSchema}), a), 202, "")
	}
	waitUntil(t, "both bombs to run", func() bool { return b.running.Load() == 2 })
	for i := range 200 {
		expect(t, app.Request(upload(t, app, fmt.Sprintf("q%d.csv", i), peopleCSV, map[string]string{"schema": peopleSchema}), a), 202, "")
	}
	waitUntil(t, "the dead endpoints to hold deliveries", func() bool { return hole.accepted.Load() >= 2 })
	var queued timedJob
	app.Request(upload(t, app, "streamed.csv", peopleCSV, map[string]string{"schema": peopleSchema}), a).JSON(t, &queued)
	for range app.Config.HTTP.Streams.PerCredential { // every event stream its key may hold, never read
		t.Cleanup(holdStream(t, app, a, queued.ID))
	}
	refusedStream(t, app, a, queued.ID, "credential")

	res := app.Request(upload(t, app, "one.csv", "ID,E-mail,Joined\n1,ann@x.io,2024-01-31\n", map[string]string{"schema": peopleSchema}), v)
	expect(t, res, 202, "")
	var created timedJob
	res.JSON(t, &created)
	j := waitFinished(t, app, v, created.ID, testtime.Scale(30*time.Second))
	createdAt, startedAt, finishedAt := parseTime(t, &j.CreatedAt), parseTime(t, j.StartedAt), parseTime(t, j.FinishedAt)
	t.Logf("%s: the victim's job started %s and finished %s after it was created; %d bombs running, %d connections to the dead endpoints",
		target.Name, startedAt.Sub(createdAt).Round(time.Millisecond), finishedAt.Sub(createdAt).Round(time.Millisecond), b.running.Load(), hole.accepted.Load())
	if j.Status != "succeeded" || startedAt.Sub(createdAt) > testtime.Scale(5*time.Second) || finishedAt.Sub(createdAt) > testtime.Scale(10*time.Second) {
		t.Fatalf("the victim's job: %s, started after %s, finished after %s (want 5 s and 10 s)", j.Status, startedAt.Sub(createdAt), finishedAt.Sub(createdAt))
	}
	// The victim's own stream and generated download are not delayed by
	// the streams the hostile organization holds.
	t.Cleanup(holdStream(t, app, v, j.ID))
	begun := time.Now()
	expect(t, app.Do("GET", "/v1/jobs/"+j.ID+"/rows.xlsx", v, nil), 200, "")
	if took := time.Since(begun); took > testtime.Scale(5*time.Second) {
		t.Fatalf("the victim's 1-row workbook took %s (want 5 s)", took)
	}
	if b.running.Load() != 2 {
		t.Fatalf("%d bombs running at the end, want 2: the test proves nothing", b.running.Load())
	}
}

// waitUntil polls cond for up to 60 s (scaled).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := testtime.Deadline(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 60 s for %s", what)
		}
	}
}

// waitFinished polls a job until it ends or within is over.
func waitFinished(t *testing.T, app *apptest.App, who apptest.Caller, id string, within time.Duration) timedJob {
	t.Helper()
	var j timedJob
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		app.Do("GET", "/v1/jobs/"+id, who, nil).JSON(t, &j)
		if j.FinishedAt != nil || time.Now().After(deadline) {
			break
		}
	}
	if j.FinishedAt == nil || j.StartedAt == nil {
		t.Fatalf("job %s still %s after %s", id, j.Status, within)
	}
	return j
}
