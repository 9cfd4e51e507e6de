package review

import (
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

	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	domainconnect "github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	reviewdoc "github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var (
	now  = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	acme = identity.Principal{OrgID: "org_acme", UserID: "usr_ann"}
)

// peopleSchema has a required field, so a review can block.
const peopleSchema = `{"fields":[{"name":"name","constraints":{"required":true}},{"name":"email"},{"name":"active","type":"boolean"}]}`

// useCases are the review's use cases, each on its own ports, called
// through one value.
type useCases struct {
	*Reviewer
	*Confirmer
	*Expirer
	*Editor
	*Rerunner
}

// fixture is the review's use cases over a real jobs service and a real
// connect service, all three on mocks of their ports. The job repository,
// the blob store, the learned mappings and the saved schemas keep their
// state in memory, and a transaction undoes what it stored when it fails,
// so a test reads a use case's outcome from what is stored; the
// repositories themselves are tested on real databases. A job's files are
// staged from the stored blobs and read by openTable, the simplest CSV and
// workbooks, so rows and sheets are read again as the use cases ask.
type fixture struct {
	t       *testing.T
	jobs    *mocks.Jobs
	reviews *mocks.JobReviews
	blobs   *mocks.BlobStore
	staging *mocks.Staging
	tables  *mocks.TableOpener
	svc     useCases

	mu      sync.Mutex
	stored  map[string]job.Job
	events  []string          // "job kind", in order
	queued  []string          // the jobs handed to the queue
	blobMap map[string]string // closed blobs by key
	deleted []string          // deleted blob keys
	learned map[string]string // "schema/header" → field
	saved   map[string]schema.Saved
	library map[string]domainconnect.File
	linked  map[string][]string         // job → the library files it reads
	edits   map[string][]normalize.Edit // job → its edits, one a cell

	beforeUpdate func(*job.Job)   // changes a job between a use case's read and its update
	pending      int              // the organization's queued or running jobs, as the slots count them
	failKind     string           // an event of this kind cannot be stored
	failPut      error            // the error of learning a mapping
	schemaErr    error            // the error of reading any saved schema
	openErr      map[string]error // the error of opening these blobs
	brokenAt     map[string]int   // these blobs fail after this many bytes
	createErr    error            // the error of creating any blob
	stageErr     error            // the error of staging any file
	commitErr    error            // the error of storing an update, once its function ran
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	f := &fixture{t: t, jobs: mocks.NewJobs(t), reviews: mocks.NewJobReviews(t), blobs: mocks.NewBlobStore(t), staging: mocks.NewStaging(t),
		tables: mocks.NewTableOpener(t),
		stored: map[string]job.Job{}, blobMap: map[string]string{}, learned: map[string]string{}, saved: map[string]schema.Saved{},
		library: map[string]domainconnect.File{}, linked: map[string][]string{}, edits: map[string][]normalize.Edit{}, openErr: map[string]error{}, brokenAt: map[string]int{}}
	tx, clock := mocks.NewTransactor(t), mocks.NewClock(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(f.inTx).Maybe()
	clock.EXPECT().Now().Return(now).Maybe()

	f.jobs.EXPECT().Get(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.get).Maybe()
	f.jobs.EXPECT().Update(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.update).Maybe()
	f.jobs.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, j job.Job) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.stored[j.ID]; ok {
			return fmt.Errorf("job %s exists", j.ID)
		}
		f.stored[j.ID] = j
		return nil
	}).Maybe()

	events, bus, queue, slots, quotas, render := mocks.NewJobEvents(t), mocks.NewEventBus(t), mocks.NewQueue(t), mocks.NewJobSlots(t),
		mocks.NewQuotas(t), mocks.NewJobRenderer(t)
	events.EXPECT().Append(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(_ context.Context, jobID, kind string, _ []byte, at time.Time) (ports.Event, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if kind == f.failKind {
				return ports.Event{}, errors.New("the event store is down")
			}
			f.events = append(f.events, jobID+" "+kind)
			return ports.Event{JobID: jobID, Seq: len(f.events), Kind: kind, At: at}, nil
		}).Maybe()
	bus.EXPECT().Publish(mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()
	render.EXPECT().Event(mock.Anything, mock.Anything, mock.Anything).Return([]byte(`{}`), nil).Maybe()
	render.EXPECT().Mapping(mock.Anything).RunAndReturn(apiMapping).Maybe()
	queue.EXPECT().Enqueue(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, _, jobID string, _ int) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.queued = append(f.queued, jobID)
		return nil
	}).Maybe()
	slots.EXPECT().Counts(mock.Anything, mock.Anything).RunAndReturn(func(context.Context, string) (int, int, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return 0, f.pending, nil
	}).Maybe()
	quotas.EXPECT().Get(mock.Anything, mock.Anything).Return(job.Quota{}, nil).Maybe()

	schemas := mocks.NewSchemas(t)
	schemas.EXPECT().Get(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, orgID, id string) (schema.Saved, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.schemaErr != nil {
			return schema.Saved{}, f.schemaErr
		}
		s, ok := f.saved[id]
		if !ok || s.OrgID != orgID {
			return schema.Saved{}, domain.NotFound("schema")
		}
		return s, nil
	}).Maybe()

	learned := mocks.NewLearnedMappings(t)
	learned.EXPECT().Get(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, _, schemaID string) (map[string]string, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		out := map[string]string{}
		for k, v := range f.learned {
			if s, h, _ := strings.Cut(k, "/"); s == schemaID {
				out[h] = v
			}
		}
		return out, nil
	}).Maybe()
	learned.EXPECT().Put(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(_ context.Context, _, schemaID, header, field string, _ time.Time) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.failPut != nil {
				return f.failPut
			}
			f.learned[schemaID+"/"+header] = field
			return nil
		}).Maybe()

	f.blobs.EXPECT().Open(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.openBlob).Maybe()
	f.blobs.EXPECT().Create(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, key string) (io.WriteCloser, error) {
		if f.createErr != nil {
			return nil, f.createErr
		}
		return &blobWriter{f: f, ctx: ctx, key: key}, nil
	}).Maybe()
	f.blobs.EXPECT().Delete(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, key string) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.deleted = append(f.deleted, key)
		delete(f.blobMap, key)
		return nil
	}).Maybe()

	files := mocks.NewFiles(t)
	files.EXPECT().Hold(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, orgID string, ids []string) ([]domainconnect.File, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		var out []domainconnect.File
		for _, id := range ids {
			if file, ok := f.library[id]; ok && file.OrgID == orgID {
				out = append(out, file)
			}
		}
		return out, nil
	}).Maybe()
	files.EXPECT().Link(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, jobID string, ids []string) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.linked[jobID] = slices.Clone(ids)
		return nil
	}).Maybe()

	f.staging.EXPECT().Stage(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.stage).Maybe()
	f.tables.EXPECT().Open(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(openStaged).Maybe()

	edits := f.editsMock()
	// The history's behaviour is the repository's (portstest) and the
	// API's (adapters/httpapi); here every job's history is empty.
	history := mocks.NewJobHistory(t)
	history.EXPECT().Steps(mock.Anything, mock.Anything, mock.Anything).Return(nil, nil).Maybe()
	history.EXPECT().Add(mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(nil).Maybe()

	log := slog.New(slog.DiscardHandler)
	jcfg := jobs.Config{}
	outbox := jobs.NewOutbox(events, render, bus)
	create := jobs.NewCreator(jcfg, f.jobs, mocks.NewImportSessions(t), schemas, quotas, f.blobs, nil, tx, clock, outbox, jobs.NewDispatcher(jcfg, slots, queue, tx, log))
	trail := mocks.NewAuditLog(t)
	trail.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
	read := jobs.NewReader(f.jobs, events, bus, f.blobs, nil, trail, clock)
	sources := jobs.NewSources(jcfg, f.staging, f.tables, nil, log)
	conn := connect.NewService(files, create, f.blobs, mocks.NewTableOpener(t), tx, clock, log)
	f.svc = useCases{
		Reviewer:  NewReviewer(cfg, f.jobs, sources, learned, f.blobs, render, log),
		Confirmer: NewConfirmer(f.jobs, create, learned, tx, clock),
		Expirer:   NewExpirer(cfg, f.jobs, f.reviews, outbox, tx, clock, log),
		Editor:    NewEditor(cfg, f.jobs, edits, history, read, sources, tx, clock),
		Rerunner:  NewRerunner(cfg, f.jobs, schemas, edits, history, f.blobs, create, conn, tx, clock, log),
	}
	return f
}

// editsMock is the repository of edits, kept in f.edits.
func (f *fixture) editsMock() *mocks.JobEdits {
	edits := mocks.NewJobEdits(f.t)
	edits.EXPECT().All(mock.Anything, mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, _, jobID string) ([]normalize.Edit, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return slices.Clone(f.edits[jobID]), nil
	}).Maybe()
	edits.EXPECT().Put(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(_ context.Context, _, jobID string, es []normalize.Edit, limits ports.EditLimits) (int, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			all := normalize.MergeEdits(f.edits[jobID], es)
			if len(all) > limits.Count {
				return 0, domain.Errorf(domain.ErrConflict, domain.CodeEditLimitReached, "too many")
			}
			f.edits[jobID] = all
			return len(all), nil
		}).Maybe()

	edits.EXPECT().List(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(f.listEdits).Maybe()
	edits.EXPECT().Replacements(mock.Anything, mock.Anything, mock.Anything).Return(nil, nil).Maybe()
	edits.EXPECT().OfRows(mock.Anything, mock.Anything, mock.Anything, mock.Anything).RunAndReturn(
		func(_ context.Context, _, jobID string, rows map[string][]int64) ([]normalize.Edit, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			var out []normalize.Edit
			for _, e := range f.edits[jobID] {
				if slices.Contains(rows[e.SourceFile], e.Row) {
					out = append(out, e)
				}
			}
			return out, nil
		}).Maybe()
	return edits
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
	if f.beforeUpdate != nil {
		f.beforeUpdate(&j)
	}
	if err := fn(&j); err != nil {
		return job.Job{}, err
	}
	if f.commitErr != nil {
		return job.Job{}, f.commitErr
	}
	f.put(j)
	return j, nil
}

// inTx runs fn as a transaction would: what it stored is undone when it
// fails. A nested call joins the outer one, as the real transactor does.
func (f *fixture) inTx(ctx context.Context, fn func(context.Context) error) error {
	if ctx.Value(txKey{}) != nil {
		return fn(ctx)
	}
	f.mu.Lock()
	stored, events, queued, learned, linked := maps.Clone(f.stored), slices.Clone(f.events), slices.Clone(f.queued), maps.Clone(f.learned), maps.Clone(f.linked)
	edits := maps.Clone(f.edits)
	f.mu.Unlock()
	err := fn(context.WithValue(ctx, txKey{}, true))
	if err != nil {
		f.mu.Lock()
		f.stored, f.events, f.queued, f.learned, f.linked, f.edits = stored, events, queued, learned, linked, edits
		f.mu.Unlock()
	}
	return err
}

type txKey struct{}

func (f *fixture) openBlob(_ context.Context, key string, offset, _ int64) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.openErr[key]; err != nil {
		return nil, err
	}
	b, ok := f.blobMap[key]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", key, domain.ErrNotFound)
	}
	var r io.Reader = strings.NewReader(b[offset:])
	if n, ok := f.brokenAt[key]; ok {
		r = io.MultiReader(strings.NewReader(b[:n]), errReader{})
	}
	return io.NopCloser(r), nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("the disk is gone") }

// blobWriter stores its blob when it closes, unless its context was
// canceled before: the write is then abandoned, as the port promises.
type blobWriter struct {
	f   *fixture
	ctx context.Context
	key string
	buf strings.Builder
}

func (w *blobWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

func (w *blobWriter) Close() error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	w.f.blobMap[w.key] = w.buf.String()
	return nil
}

// stage copies a stored blob into dir, as the staging port does.
func (f *fixture) stage(_ context.Context, key, dir string) (string, error) {
	f.mu.Lock()
	b, ok := f.blobMap[key]
	err := f.stageErr
	f.mu.Unlock()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("blob %s: %w", key, domain.ErrNotFound)
	}
	path := filepath.Join(dir, strings.ReplaceAll(key, "/", "_"))
	return path, os.WriteFile(path, []byte(b), 0o600)
}

// listEdits is a page of a job's edits; the cursor is where it starts.
func (f *fixture) listEdits(_ context.Context, _, jobID string, page ports.Page) ([]normalize.Edit, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all := f.edits[jobID]
	from := 0
	if page.Cursor != "" {
		if _, err := fmt.Sscan(page.Cursor, &from); err != nil {
			return nil, "", err
		}
	}
	to, next := min(from+page.Limit, len(all)), ""
	if to < len(all) {
		next = fmt.Sprint(to)
	}
	return slices.Clone(all[from:to]), next, nil
}

// openStaged opens a staged file, as the table opener does.
func openStaged(_ context.Context, path, filename string, opts table.ReadOptions) (table.Reader, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return openTable(string(b), filename, opts.Sheet)
}

// openTable reads the simplest tables: lines of cells split at commas,
// the first the header. A workbook (a filename ending .xlsx) is sheets,
// each a line "[name]" and its lines; sheet "" is the first. A sheet
// whose only line is "!unreadable" cannot be opened, as a damaged one.
func openTable(content, filename, sheet string) (table.Reader, error) {
	if !strings.HasSuffix(filename, ".xlsx") {
		return newLinesReader(table.CSV, strings.Split(strings.TrimSuffix(content, "\n"), "\n")), nil
	}
	b := &bookReader{}
	var chosen []string
	found := false
	for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		if name, ok := strings.CutPrefix(l, "["); ok {
			name = strings.TrimSuffix(name, "]")
			b.sheets = append(b.sheets, table.Sheet{Name: name, Complete: true})
			found = found || name == sheet || sheet == "" && len(b.sheets) == 1
			continue
		}
		sh := &b.sheets[len(b.sheets)-1]
		if sh.Rows == 0 {
			sh.FirstRow = strings.Split(l, ",")
		}
		sh.Rows++
		if sh.Name == sheet || sheet == "" && len(b.sheets) == 1 {
			chosen, b.read = append(chosen, l), sh.Name
		}
	}
	switch {
	case !found:
		return nil, fmt.Errorf("no sheet %q: %w", sheet, table.ErrUnreadable)
	case len(chosen) == 1 && chosen[0] == "!unreadable":
		return nil, fmt.Errorf("the sheet's XML is damaged: %w", table.ErrUnreadable)
	}
	b.linesReader = *newLinesReader(table.XLSX, chosen)
	return b, nil
}

type linesReader struct {
	format table.Format
	header []string
	rows   []string
	next   int
}

func newLinesReader(format table.Format, lines []string) *linesReader {
	r := &linesReader{format: format}
	if len(lines) > 0 {
		r.header, r.rows = strings.Split(lines[0], ","), lines[1:]
	}
	return r
}

func (r *linesReader) Format() table.Format { return r.format }
func (r *linesReader) Header() []string     { return r.header }
func (r *linesReader) BytesRead() int64     { return int64(r.next) }
func (r *linesReader) Close() error         { return nil }
func (r *linesReader) Next() (table.Record, error) {
	if r.next == len(r.rows) {
		return table.Record{}, io.EOF
	}
	r.next++
	return table.Record{Number: r.next, Cells: strings.Split(r.rows[r.next-1], ","), Owned: true}, nil
}

// bookReader is a workbook's sheet, which lists the workbook's sheets and
// says which one it reads.
type bookReader struct {
	linesReader
	sheets []table.Sheet
	read   string
}

func (r *bookReader) Sheets() ([]table.Sheet, error) { return r.sheets, nil }
func (r *bookReader) Detection() table.Detection {
	return table.Detection{Format: table.XLSX, Sheet: r.read}
}

// putBlob stores a blob.
func (f *fixture) putBlob(key, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.blobMap[key] = content
}

// blob is a stored blob's content, and whether there is one.
func (f *fixture) blob(key string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.blobMap[key]
	return b, ok
}

// eventsOf are the kinds of a job's stored events, in order.
func (f *fixture) eventsOf(jobID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kinds []string
	for _, e := range f.events {
		if id, kind, _ := strings.Cut(e, " "); id == jobID {
			kinds = append(kinds, kind)
		}
	}
	return strings.Join(kinds, ",")
}

func (f *fixture) queuedJobs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.queued)
}

func (f *fixture) learnedNow() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.learned)
}

// awaiting stores a job that stopped for its review as the jobs service
// leaves it: the sample of its one file kept, the review computed from it
// with the job's options and the learned mappings of its saved schema.
func (f *fixture) awaiting(id, schemaID, options string, header []string, rows ...[]string) job.Job {
	f.t.Helper()
	sch, err := schema.Parse([]byte(peopleSchema))
	if err != nil {
		f.t.Fatal(err)
	}
	opts, err := normalize.ParseOptions(normalize.ModeNormalize, []byte(options))
	if err != nil {
		f.t.Fatal(err)
	}
	smp := normalize.Sample{Format: table.CSV, Header: header, Complete: true}
	for i, r := range rows {
		smp.Records = append(smp.Records, table.Record{Number: i + 1, Cells: r, Owned: true})
	}
	stored, err := normalize.MarshalSamples([]normalize.Sample{smp})
	if err != nil {
		f.t.Fatal(err)
	}
	f.putBlob(jobs.SampleKey(acme.OrgID, id), string(stored))
	var learned map[string]string
	if schemaID != "" {
		f.mu.Lock()
		f.saved[schemaID] = schema.Saved{ID: schemaID, OrgID: acme.OrgID, Name: "people", Document: sch.JSON()}
		f.mu.Unlock()
		learned = map[string]string{}
		for k, v := range f.learnedNow() {
			if s, h, _ := strings.Cut(k, "/"); s == schemaID {
				learned[h] = v
			}
		}
	}
	rev, err := normalize.RunReview(context.Background(), normalize.ReviewInput{Mode: normalize.ModeNormalize, Schema: sch, Options: opts,
		Learned: learned, Samples: []normalize.Sample{smp}})
	if err != nil {
		f.t.Fatal(err)
	}
	since := now.Add(-time.Hour)
	return f.put(job.Job{ID: id, Mode: normalize.ModeNormalize, Status: job.AwaitingReview, SourceType: job.SourceUpload,
		Files: []job.File{{ID: "file_" + id, Filename: "people.csv", Format: "csv", SizeBytes: 100}}, SchemaID: schemaID, Schema: sch.JSON(),
		Options: opts.JSON(), Mapping: must(apiMapping(rev.Mapping())), Review: &rev, ReviewSince: &since, Attempts: 1, CreatedAt: now.Add(-2 * time.Hour),
		Progress: job.Progress{BytesTotal: 100, RowsRead: 3}})
}

// column is a column of a job's stored review.
func column(t *testing.T, j job.Job, name string) reviewdoc.Column {
	t.Helper()
	for _, c := range j.Review.Columns {
		if c.SourceColumn == name {
			return c
		}
	}
	t.Fatalf("the review has no column %q", name)
	return reviewdoc.Column{}
}

// mappingOf is a job's options.mapping.
func mappingOf(t *testing.T, j job.Job) normalize.Mapping {
	t.Helper()
	opts, err := normalize.ParseOptions(j.Mode, j.Options)
	if err != nil {
		t.Fatal(err)
	}
	return opts.Mapping
}

// fieldOf is what a review column maps to ("" for nothing) and how.
func fieldOf(c reviewdoc.Column) string {
	if c.Field == nil {
		return "-"
	}
	return *c.Field + "/" + *c.Method
}

// fieldsOf are a coded error's fields.
func fieldsOf(err error) string {
	var e *domain.Error
	if !errors.As(err, &e) {
		return ""
	}
	var out []string
	for _, fe := range e.Fields {
		out = append(out, fe.Field)
	}
	return strings.Join(out, ",")
}

// apiMapping writes a mapping as the API's job object shows it (the HTTP
// adapter's JobRenderer), so the tests read a job's mapping as clients do.
func apiMapping(entries []match.Entry) ([]byte, error) {
	type evidence struct {
		Header  float64 `json:"header"`
		Values  float64 `json:"values"`
		Matched string  `json:"matched"`
	}
	type entry struct {
		SourceFile   *string   `json:"source_file,omitempty"`
		SourceColumn string    `json:"source_column"`
		Field        *string   `json:"field"`
		Method       *string   `json:"method"`
		Confidence   *float64  `json:"confidence"`
		Evidence     *evidence `json:"evidence"`
	}
	out := make([]entry, len(entries))
	for i, m := range entries {
		out[i] = entry{SourceColumn: m.SourceColumn}
		if m.SourceFile != "" {
			out[i].SourceFile = &m.SourceFile
		}
		if m.Field != "" {
			field, method, conf := m.Field, m.Method, m.Confidence
			out[i].Field, out[i].Method, out[i].Confidence, out[i].Evidence = &field, &method, &conf, (*evidence)(m.Evidence)
		}
	}
	return json.Marshal(out)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
