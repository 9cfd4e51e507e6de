package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var (
	now  = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	acme = identity.Principal{OrgID: "org_acme", UserID: "usr_ann"}

	identityOther = identity.Principal{OrgID: "org_other"}
)

// fixture is the jobs use cases on mocks of their ports. The repository mock
// keeps its jobs in memory and applies Update's function to them as the
// real one does, so a test reads the outcome of a use case from the
// stored job; the repositories themselves are tested on real databases.
type fixture struct {
	t        *testing.T
	jobs     *mocks.Jobs
	events   *mocks.JobEvents
	schemas  *mocks.Schemas
	learned  *mocks.LearnedMappings
	bus      *mocks.EventBus
	queue    *mocks.Queue
	slots    *mocks.JobSlots
	quotas   *mocks.Quotas
	blobs    *mocks.BlobStore
	staging  *mocks.Staging
	tables   *mocks.TableOpener
	render   *mocks.JobRenderer
	observer *mocks.JobObserver
	tx       *mocks.Transactor
	clock    *mocks.Clock
	log      *slog.Logger

	// the use cases, on the mocks, sharing one outbox and one dispatcher
	outbox   *jobs.Outbox
	dispatch *jobs.Dispatcher
	sources  *jobs.Sources
	create   *jobs.Creator
	run      *jobs.Runner
	read     *jobs.Reader
	cancel   *jobs.Canceler
	reap     *jobs.Reaper

	mu       sync.Mutex
	stored   map[string]job.Job
	appended []string                 // kinds of the stored events, in order
	withJob  map[string]bool          // whether the last event of each kind carried the job
	written  map[string]*bytes.Buffer // closed blobs by key
	workdirs []string                 // the working folders files were staged in
	failKind string                   // an event of this kind cannot be stored
}

func newFixture(t *testing.T, cfg jobs.Config) *fixture {
	t.Helper()
	f := &fixture{t: t, jobs: mocks.NewJobs(t), events: mocks.NewJobEvents(t), schemas: mocks.NewSchemas(t), learned: mocks.NewLearnedMappings(t),
		bus: mocks.NewEventBus(t), queue: mocks.NewQueue(t), slots: mocks.NewJobSlots(t), quotas: mocks.NewQuotas(t), blobs: mocks.NewBlobStore(t),
		staging: mocks.NewStaging(t), tables: mocks.NewTableOpener(t), render: mocks.NewJobRenderer(t), observer: mocks.NewJobObserver(t),
		stored: map[string]job.Job{}, withJob: map[string]bool{}, written: map[string]*bytes.Buffer{}}
	f.tx, f.clock, f.log = mocks.NewTransactor(t), mocks.NewClock(t), slog.New(slog.DiscardHandler)
	tx, clock := f.tx, f.clock
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(f.inTx).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()
	f.jobs.EXPECT().Get(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.get).Maybe()
	f.jobs.EXPECT().Update(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.update).Maybe()
	f.events.EXPECT().Append(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.append).Maybe()
	f.bus.EXPECT().Publish(mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	f.render.EXPECT().Event(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(j job.Job, _ time.Time, withJob bool) ([]byte, error) {
		return fmt.Appendf(nil, `{"status":%q,"job":%v}`, j.Status, withJob), nil
	}).Maybe()
	f.blobs.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, key string) (io.WriteCloser, error) {
		return &blobWriter{f: f, key: key}, nil
	}).Maybe()
	if cfg.Observer == nil {
		cfg.Observer = f.observer
	}
	f.outbox = jobs.NewOutbox(f.events, f.render, f.bus)
	f.dispatch = jobs.NewDispatcher(cfg, f.slots, f.queue, tx, f.log)
	f.sources = jobs.NewSources(cfg, f.staging, f.tables, nil, f.log)
	f.create = jobs.NewCreator(cfg, f.jobs, mocks.NewImportSessions(t), f.schemas, f.quotas, f.blobs, f.tables, tx, clock, f.outbox, f.dispatch)
	f.run = jobs.NewRunner(cfg, f.jobs, f.learned, nil, f.blobs, f.render, tx, clock, f.log, f.sources, f.outbox, f.dispatch)
	trail := mocks.NewAuditLog(t)
	trail.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
	f.read = jobs.NewReader(f.jobs, f.events, f.bus, f.blobs, f.sources, trail, clock)
	f.cancel = jobs.NewCanceler(f.jobs, f.blobs, tx, clock, f.log, f.outbox, f.dispatch)
	f.reap = f.newReaper(cfg, nil)
	return f
}

// newReaper is the reaper on the fixture's mocks, with orphans (nil: Reap
// and Purge only).
func (f *fixture) newReaper(cfg jobs.Config, orphans *jobs.Orphans) *jobs.Reaper {
	return jobs.NewReaper(cfg, f.jobs, f.blobs, f.tx, f.clock, f.log, f.outbox, f.dispatch, orphans)
}

// put stores a job as the repository would hold it.
func (f *fixture) put(j job.Job) job.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	if j.OrgID == "" {
		j.OrgID = acme.OrgID
	}
	f.stored[j.ID] = j
	return j
}

// job is the stored job now.
func (f *fixture) job(id string) job.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stored[id]
}

func (f *fixture) get(_ context.Context, orgID, id string) (job.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.stored[id]
	if !ok || (orgID != "" && j.OrgID != orgID) {
		return job.Job{}, domain.NotFound("job")
	}
	return j, nil
}

func (f *fixture) update(ctx context.Context, orgID, id string, fn func(*job.Job) error) (job.Job, error) {
	j, err := f.get(ctx, orgID, id)
	if err != nil {
		return job.Job{}, err
	}
	if err := fn(&j); err != nil {
		return job.Job{}, err
	}
	f.put(j)
	return j, nil
}

// inTx runs fn as a transaction would: what it stored is undone when it
// fails.
func (f *fixture) inTx(ctx context.Context, fn func(context.Context) error) error {
	f.mu.Lock()
	stored, appended := maps.Clone(f.stored), slices.Clone(f.appended)
	f.mu.Unlock()
	err := fn(ctx)
	if err != nil {
		f.mu.Lock()
		f.stored, f.appended = stored, appended
		f.mu.Unlock()
	}
	return err
}

func (f *fixture) append(_ context.Context, jobID, kind string, data []byte, at time.Time) (ports.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if kind == f.failKind {
		return ports.Event{}, errors.New("the event store is down")
	}
	f.appended = append(f.appended, kind)
	f.withJob[kind] = strings.Contains(string(data), `"job":true`)
	return ports.Event{JobID: jobID, Seq: len(f.appended), Kind: kind, At: at}, nil
}

// kinds are the kinds of the stored events, in order.
func (f *fixture) kinds() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.appended, ",")
}

// blob is a closed blob's content ("" and false when none was closed).
func (f *fixture) blob(key string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.written[key]
	if !ok {
		return "", false
	}
	return b.String(), true
}

type blobWriter struct {
	f   *fixture
	key string
	buf bytes.Buffer
}

func (w *blobWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

func (w *blobWriter) Close() error {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	w.f.written[w.key] = &w.buf
	return nil
}

// stageFiles makes the staging port copy content for every key into the
// run's working folder, and the table opener read those copies as CSV.
func (f *fixture) stageFiles(content map[string]string) {
	f.staging.EXPECT().Stage(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, key, dir string) (string, error) {
		f.mu.Lock()
		f.workdirs = append(f.workdirs, dir)
		f.mu.Unlock()
		c, ok := content[key]
		if !ok {
			return "", fmt.Errorf("blob %s: %w", key, domain.ErrNotFound)
		}
		path := filepath.Join(dir, strings.ReplaceAll(key, "/", "_"))
		return path, os.WriteFile(path, []byte(c), 0o600)
	}).Maybe()
	f.tables.EXPECT().Open(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(_ context.Context, path, _ string, _ table.ReadOptions) (table.Reader, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return newCSVReader(string(b)), nil
		}).Maybe()
}

// csvReader reads the simplest CSV: lines of cells split at commas.
type csvReader struct {
	header []string
	rows   [][]string
	next   int
}

func newCSVReader(s string) *csvReader {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	r := &csvReader{header: strings.Split(lines[0], ",")}
	for _, l := range lines[1:] {
		r.rows = append(r.rows, strings.Split(l, ","))
	}
	return r
}

func (r *csvReader) Format() table.Format { return table.CSV }
func (r *csvReader) Header() []string     { return r.header }
func (r *csvReader) BytesRead() int64     { return int64(r.next) }
func (r *csvReader) Close() error         { return nil }
func (r *csvReader) Next() (table.Record, error) {
	if r.next == len(r.rows) {
		return table.Record{}, io.EOF
	}
	r.next++
	return table.Record{Number: r.next, Cells: r.rows[r.next-1], Owned: true}, nil
}

// endlessReader hands out one record, then waits for ctx to end: a run
// that only a cancellation, a timeout or a stopping worker ends.
type endlessReader struct {
	ctx  context.Context
	sent bool
}

func (r *endlessReader) Format() table.Format { return table.CSV }
func (r *endlessReader) Header() []string     { return []string{"name"} }
func (r *endlessReader) BytesRead() int64     { return 1 }
func (r *endlessReader) Close() error         { return nil }
func (r *endlessReader) Next() (table.Record, error) {
	if !r.sent {
		r.sent = true
		return table.Record{Number: 1, Cells: []string{"Ann"}, Owned: true}, nil
	}
	<-r.ctx.Done()
	return table.Record{}, r.ctx.Err()
}

// runEndlessly makes every staged file an endless table.
func (f *fixture) runEndlessly() {
	f.staging.EXPECT().Stage(mock.Anything, mock.Anything, mock.Anything).Return(filepath.Join(f.t.TempDir(), "source"), nil).Maybe()
	f.tables.EXPECT().Open(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(ctx context.Context, _, _ string, _ table.ReadOptions) (table.Reader, error) {
			return &endlessReader{ctx: ctx}, nil
		}).Maybe()
}

// heartbeats answers heartbeats as the repository does: the stored job's
// status, with the progress stored while it runs.
func (f *fixture) heartbeats() {
	f.jobs.EXPECT().Heartbeat(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(_ context.Context, id string, p job.Progress, _ time.Time) (job.Status, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			j := f.stored[id]
			if j.Status == job.Running {
				j.Progress = p
				f.stored[id] = j
			}
			return j.Status, nil
		}).Maybe()
}

// renderResults renders mappings as documents the tests can read back.
func (f *fixture) renderResults() {
	f.render.EXPECT().Mapping(mock.Anything).RunAndReturn(func(m []match.Entry) ([]byte, error) {
		return json.Marshal(m)
	}).Maybe()
}

// noWaitingJobs answers dispatch: the organization has free slots and no
// job waits for one.
func (f *fixture) noWaitingJobs() {
	f.slots.EXPECT().Counts(mock.Anything, mock.Anything).Return(0, 0, nil).Maybe()
	f.slots.EXPECT().NextWaiting(mock.Anything, mock.Anything).Return("", nil).Maybe()
}
