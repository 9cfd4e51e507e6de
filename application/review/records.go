package review

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Records serves every record of a succeeded job as it comes out now,
// its edits applied, valid and rejected, filtered, searched and sorted, a
// page at a time from any position: a spreadsheet's rows. It reads them
// from the job's records index (records_index.go), kept in blob storage
// beside the job's results, built on first use for the job's edits as
// they stand, and each filtered or sorted list of it on first use too;
// docs/design.md says why.
type Records struct {
	jobs    ports.Jobs
	edits   ports.JobEdits
	read    *jobs.Reader
	sources *jobs.Sources
	blobs   ports.BlobStore
	log     *slog.Logger
	// once keeps one build of an index or list at a time on this node per
	// blob key; the others wait for it and read what it wrote.
	mu     sync.Mutex
	builds map[string]*build
}

type build struct {
	done chan struct{}
	err  error
}

// NewRecords returns the reading of jobs' records.
func NewRecords(jobsRepo ports.Jobs, edits ports.JobEdits, read *jobs.Reader, sources *jobs.Sources, blobs ports.BlobStore, log *slog.Logger) *Records {
	return &Records{jobs: jobsRepo, edits: edits, read: read, sources: sources, blobs: blobs, log: log, builds: map[string]*build{}}
}

// The bounds of a records query.
const (
	MaxRecordsLimit = 500
	MaxRecordsQuery = 200 // characters of q
)

// RecordStatus chooses records by whether they are valid.
type RecordStatus string

// The statuses a query may ask for.
const (
	AllRecords      RecordStatus = "all"
	ValidRecords    RecordStatus = "valid"
	RejectedRecords RecordStatus = "rejected"
)

// RecordQuery says which records, in which order, and which page of them.
type RecordQuery struct {
	Status RecordStatus // "" is all
	// Field and Code keep the records with an issue of that field and
	// that code (either may be "": any).
	Field, Code string
	// Q keeps the records with a cell containing it, case-insensitively.
	Q string
	// Sort orders by a field's typed value (nulls last), Desc downwards;
	// "" keeps the files' order.
	Sort string
	Desc bool
	// Limit is the page's size (1 to MaxRecordsLimit); Offset its first
	// position in the filtered, sorted list, or Cursor a page's next.
	Limit  int
	Offset int64
	Cursor string
}

// RecordPage is a page of records.
type RecordPage struct {
	Fields  []string // the schema's fields, in order
	Records []normalize.RowCheck
	// Total is how many records the query keeps; Next the cursor of the
	// next page ("" at the end).
	Total int64
	Next  string
}

// List returns a page of a succeeded job's records.
func (s *Records) List(ctx context.Context, p identity.Principal, jobID string, q RecordQuery) (RecordPage, error) {
	page, err := s.list(ctx, p, jobID, q)
	if errors.Is(err, errIndexGone) { // an edit's newer index replaced it while it was read: read that one
		page, err = s.list(ctx, p, jobID, q)
	}
	return page, err
}

func (s *Records) list(ctx context.Context, p identity.Principal, jobID string, q RecordQuery) (RecordPage, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return RecordPage{}, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ReadJob, j.ID, j.ImportSessionID); err != nil {
		return RecordPage{}, err
	}
	sch, err := recordsSchema(j)
	if err != nil {
		return RecordPage{}, err
	}
	if err := checkRecordQuery(&q, sch, j.ID); err != nil {
		return RecordPage{}, err
	}
	version, err := s.edits.Version(ctx, j.OrgID, j.ID)
	if err != nil {
		return RecordPage{}, err
	}
	ix := newIndex(s.blobs, j, version)
	if err := s.once(ctx, ix.key(indexMeta), func(ctx context.Context) error { return s.buildIndex(ctx, p, j, sch, ix) }, ix.exists(indexMeta)); err != nil {
		return RecordPage{}, err
	}
	list := q.listName()
	if err := s.once(ctx, ix.key(list), func(ctx context.Context) error { return s.buildList(ctx, j, sch, ix, q, list) }, ix.exists(list)); err != nil {
		return RecordPage{}, err
	}
	total, recs, err := ix.page(ctx, list, q.Offset, q.Limit)
	if err != nil {
		return RecordPage{}, err
	}
	out := RecordPage{Fields: make([]string, len(sch.Fields)), Records: recs, Total: total}
	for i, f := range sch.Fields {
		out.Fields[i] = f.Name
	}
	if end := q.Offset + int64(len(recs)); end < total {
		out.Next = recordsCursor(j.ID, end)
	}
	return out, nil
}

// recordsSchema is the schema of a job whose records may be read: a
// succeeded job of mode normalize or validate.
func recordsSchema(j job.Job) (*schema.Schema, error) {
	if j.Status != job.Succeeded {
		return nil, domain.Errorf(domain.ErrConflict, domain.CodeJobNotFinished, "The job is %s; its records are read once it has succeeded.", j.Status)
	}
	if j.Mode == normalize.ModeInfer || j.Schema == nil {
		return nil, domain.Invalid("A job in infer mode has no schema: its rows are not records of one.")
	}
	sch, err := schema.Parse(j.Schema)
	if err != nil {
		return nil, fmt.Errorf("schema of job %s: %w", j.ID, err)
	}
	return sch, nil
}

// once runs fn unless ready says its blob is there, one run at a time on
// this node per key: a second request for the same key waits for the
// first's and then reads what it wrote. Another node may build the same
// blob at the same time; both write the same bytes.
func (s *Records) once(ctx context.Context, key string, fn func(context.Context) error, ready func(context.Context) (bool, error)) error {
	for {
		ok, err := ready(ctx)
		if err != nil || ok {
			return err
		}
		s.mu.Lock()
		b, running := s.builds[key]
		if !running {
			b = &build{done: make(chan struct{})}
			s.builds[key] = b
		}
		s.mu.Unlock()
		if running {
			select {
			case <-b.done:
				if b.err != nil {
					return b.err
				}
				continue // built: read it
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		// The build outlives a request that gives up: the next one reads it.
		b.err = fn(context.WithoutCancel(ctx))
		s.mu.Lock()
		delete(s.builds, key)
		s.mu.Unlock()
		close(b.done)
		return b.err
	}
}

func fieldNamed(sch *schema.Schema, name string) bool {
	for _, f := range sch.Fields {
		if f.Name == name {
			return true
		}
	}
	return false
}

// checkRecordQuery refuses a query the job's records cannot answer, and
// reads its cursor into its offset.
func checkRecordQuery(q *RecordQuery, sch *schema.Schema, jobID string) error {
	var errs []domain.FieldError
	switch q.Status {
	case "":
		q.Status = AllRecords
	case AllRecords, ValidRecords, RejectedRecords:
	default:
		errs = append(errs, domain.FieldError{Field: "status", Message: "must be all, valid or rejected"})
	}
	if q.Field != "" && !fieldNamed(sch, q.Field) {
		errs = append(errs, domain.FieldError{Field: "field", Message: fmt.Sprintf("the schema has no field %q", q.Field)})
	}
	if q.Sort != "" && !fieldNamed(sch, q.Sort) {
		errs = append(errs, domain.FieldError{Field: "sort", Message: fmt.Sprintf("the schema has no field %q", q.Sort)})
	}
	if len(q.Code) > 64 {
		errs = append(errs, domain.FieldError{Field: "code", Message: "at most 64 characters"})
	}
	if !utf8.ValidString(q.Q) || utf8.RuneCountInString(q.Q) > MaxRecordsQuery {
		errs = append(errs, domain.FieldError{Field: "q", Message: fmt.Sprintf("at most %d characters of UTF-8", MaxRecordsQuery)})
	}
	if q.Limit < 1 || q.Limit > MaxRecordsLimit {
		errs = append(errs, domain.FieldError{Field: "limit", Message: fmt.Sprintf("must be 1 to %d", MaxRecordsLimit)})
	}
	if q.Offset < 0 {
		errs = append(errs, domain.FieldError{Field: "offset", Message: "must be 0 or more"})
	}
	if q.Cursor != "" && q.Offset != 0 {
		errs = append(errs, domain.FieldError{Field: "cursor", Message: "give a cursor or an offset, not both"})
	}
	if len(errs) > 0 {
		return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The records query is not valid; see errors.", Fields: errs}
	}
	q.Q = strings.TrimSpace(q.Q)
	if q.Cursor != "" {
		n, err := recordsOffset(q.Cursor, jobID)
		if err != nil {
			return err
		}
		q.Offset = n
	}
	return nil
}

func recordsCursor(jobID string, offset int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(jobID + "\x00records\x00" + strconv.FormatInt(offset, 10)))
}

func recordsOffset(cursor, jobID string) (int64, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, errInvalidCursor
	}
	parts := strings.Split(string(raw), "\x00")
	if len(parts) != 3 || parts[0] != jobID || parts[1] != "records" {
		return 0, errInvalidCursor
	}
	n, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || n < 0 {
		return 0, errInvalidCursor
	}
	return n, nil
}

// errIndexGone is a blob of an index missing while it is read: a newer
// version of the job's edits replaced it.
var errIndexGone = errors.New("records index replaced while read")
