package review

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	reviewdoc "github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// DefaultTTL is how long a review waits for a person by default.
const DefaultTTL = 7 * 24 * time.Hour

// Config holds the review settings.
type Config struct {
	// TTL is how long a job awaits its review before it is canceled with
	// review_expired (TABNORM_REVIEW_TTL; 0: DefaultTTL).
	TTL time.Duration
	// EditBytes bounds the bytes of one job's edits, values, fields and
	// file names (TABNORM_MAX_EDIT_BYTES_PER_JOB; 0: no bound), and
	// SessionEditBytes those of all the jobs of one import session
	// (TABNORM_MAX_EDIT_BYTES_PER_IMPORT_SESSION; 0: no bound).
	EditBytes        int64
	SessionEditBytes int64
}

// Each use case is a type of its own, on the ports it uses (doc.go).

// Reviewer reads and changes the review of a job awaiting it: its
// mapping and its sheet (sheet.go).
type Reviewer struct {
	ttl     time.Duration
	jobs    ports.Jobs
	sources *jobs.Sources
	learned ports.LearnedMappings
	blobs   ports.BlobStore
	render  ports.JobRenderer
	log     *slog.Logger
}

// NewReviewer returns the reading and changing of reviews.
func NewReviewer(cfg Config, jobsRepo ports.Jobs, sources *jobs.Sources, learned ports.LearnedMappings, blobs ports.BlobStore, render ports.JobRenderer,
	log *slog.Logger) *Reviewer {
	return &Reviewer{ttl: cfg.withDefaults().TTL, jobs: jobsRepo, sources: sources, learned: learned, blobs: blobs, render: render, log: log}
}

// withDefaults fills the settings left zero.
func (c Config) withDefaults() Config {
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	return c
}

// editLimits bound the edits of a job and of an import session.
func (c Config) editLimits() ports.EditLimits {
	return ports.EditLimits{Count: normalize.MaxEdits, Bytes: c.EditBytes, SessionBytes: c.SessionEditBytes}
}

// The states of a review, as its status says them.
const (
	StatusPending   = "pending"   // the job awaits it
	StatusConfirmed = "confirmed" // a person confirmed it; the job ran or runs as confirmed
	StatusExpired   = "expired"   // nobody confirmed it in time: the job was canceled
	StatusCanceled  = "canceled"  // the job was canceled while it awaited its review
)

// View is a job's review with its state.
type View struct {
	Job    job.Job
	Review reviewdoc.Review
	Status string
	// ExpiresAt is when a pending review expires; nil otherwise.
	ExpiresAt *time.Time
}

// Get returns a job's review. A job that never stopped for one is 404.
func (s *Reviewer) Get(ctx context.Context, p identity.Principal, jobID string) (View, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return View{}, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ReadJob, j.ID, j.ImportSessionID); err != nil {
		return View{}, err
	}
	return s.view(j)
}

func (s *Reviewer) view(j job.Job) (View, error) {
	if j.Review == nil {
		return View{}, domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "The job %s has no review: a job stops for one with options.review true.", j.ID)
	}
	v := View{Job: j, Review: *j.Review}
	switch {
	case j.Status == job.AwaitingReview:
		v.Status = StatusPending
		if j.ReviewSince != nil {
			at := j.ReviewSince.Add(s.ttl)
			v.ExpiresAt = &at
		}
	case j.ReviewedAt != nil:
		v.Status = StatusConfirmed
	case j.Failure != nil && j.Failure.Code == job.ReviewExpired:
		v.Status = StatusExpired
	default:
		v.Status = StatusCanceled
	}
	return v, nil
}

// settings are what a review is computed from, besides its samples.
type settings struct {
	mode    normalize.Mode
	schema  *schema.Schema
	options normalize.Options
}

func settingsOf(j job.Job) (settings, error) {
	st := settings{mode: j.Mode}
	var err error
	if st.options, err = normalize.ParseOptions(j.Mode, j.Options); err != nil {
		return settings{}, fmt.Errorf("options of job %s: %w", j.ID, err)
	}
	if j.Schema != nil {
		if st.schema, err = schema.Parse(j.Schema); err != nil {
			return settings{}, fmt.Errorf("schema of job %s: %w", j.ID, err)
		}
	}
	return st, nil
}

func (s *Reviewer) samples(ctx context.Context, j job.Job) ([]normalize.Sample, error) {
	b, err := s.sampleBytes(ctx, j)
	if err != nil {
		return nil, err
	}
	return normalize.UnmarshalSamples(b)
}

func (s *Reviewer) learnedOf(ctx context.Context, j job.Job) (map[string]string, error) {
	if j.SchemaID == "" {
		return nil, nil
	}
	return s.learned.Get(ctx, j.OrgID, j.SchemaID)
}

// invalidMapping is 422 invalid_mapping with each problem in errors.
func invalidMapping(errs []domain.FieldError) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidMapping, Message: "The mapping names columns the job's files do not have, or fields its schema does not have; see errors.",
		Fields: errs}
}

// awaitingReview is a job of p's organization that awaits its review,
// with its settings: another status is the job's own conflict.
func (s *Reviewer) awaitingReview(ctx context.Context, p identity.Principal, jobID string) (job.Job, settings, error) {
	j, err := s.jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return job.Job{}, settings{}, err
	}
	if err := importsession.CanPrincipalUseJob(p, importsession.ReviewJob, j.ID, j.ImportSessionID); err != nil {
		return job.Job{}, settings{}, err
	}
	if j.Status != job.AwaitingReview {
		return job.Job{}, settings{}, j.NotAwaitingReview()
	}
	st, err := settingsOf(j)
	if err != nil {
		return job.Job{}, settings{}, err
	}
	if st.schema == nil {
		return job.Job{}, settings{}, fmt.Errorf("job %s awaits a review without a schema", j.ID)
	}
	return j, st, nil
}

// PatchMapping changes the mapping of a job awaiting review: each source
// column named goes to its field, or to null (ignored). A field given to a
// column leaves any other column of the same file that was mapped to it.
// The review is computed again, with its preview and counts.
func (s *Reviewer) PatchMapping(ctx context.Context, p identity.Principal, jobID string, changes map[string]*string) (View, error) {
	j, st, err := s.awaitingReview(ctx, p, jobID)
	if err != nil {
		return View{}, err
	}
	samples, err := s.samples(ctx, j)
	if err != nil {
		return View{}, err
	}
	learned, err := s.learnedOf(ctx, j)
	if err != nil {
		return View{}, err
	}
	headers := normalize.Headers(samples)
	columns := make([]string, 0, len(changes))
	for c := range changes {
		columns = append(columns, c)
	}
	sort.Strings(columns)
	if errs := checkChanges(headers, st.schema, changes, columns); len(errs) > 0 {
		return View{}, invalidMapping(errs)
	}
	lists, closeLists, err := s.sources.OpenSchemaLists(ctx, p.OrgID, st.schema)
	if err != nil {
		return View{}, err
	}
	defer closeLists()
	updated, err := s.jobs.Update(ctx, p.OrgID, jobID, func(j *job.Job) error {
		if j.Status != job.AwaitingReview {
			return j.NotAwaitingReview()
		}
		st, err := settingsOf(*j)
		if err != nil {
			return err
		}
		applyChanges(st.options.Mapping, headers, changes, columns)
		rev, err := normalize.RunReview(ctx, normalize.ReviewInput{Mode: st.mode, Schema: st.schema, Options: st.options, Learned: learned, Samples: samples, Lists: lists})
		if err != nil {
			return err
		}
		mapping, err := s.render.Mapping(rev.Mapping())
		if err != nil {
			return err
		}
		j.Options = st.options.JSON()
		return j.Revise(rev, mapping)
	})
	if err != nil {
		return View{}, err
	}
	return s.view(updated)
}

// checkChanges finds the problems of a mapping change, by column: a
// header no file has, a field the schema lacks, a field given to two
// columns of one file.
func checkChanges(headers map[string][]int, sch *schema.Schema, changes map[string]*string, columns []string) []domain.FieldError {
	var errs []domain.FieldError
	type fileField struct {
		file  int
		field string
	}
	claimed := map[fileField]string{} // the column of this request that maps a file's column to a field
	for _, c := range columns {
		files, ok := headers[c]
		if !ok {
			errs = append(errs, domain.FieldError{Field: "mapping." + c, Message: "no column of the job's files has this header"})
			continue
		}
		f := changes[c]
		if f == nil || *f == "" {
			continue
		}
		if sch.Index(*f) < 0 {
			errs = append(errs, domain.FieldError{Field: "mapping." + c, Message: fmt.Sprintf("%q is not a field of the job's schema", *f)})
			continue
		}
		for _, file := range files {
			if other, ok := claimed[fileField{file, *f}]; ok {
				errs = append(errs, domain.FieldError{Field: "mapping." + c, Message: fmt.Sprintf("field %q is given to column %q of the same file too", *f, other)})
				break
			}
			claimed[fileField{file, *f}] = c
		}
	}
	return errs
}

// applyChanges maps each changed column to its field ("" ignores it); a
// field given to a column leaves the other columns of that column's files.
func applyChanges(mapping normalize.Mapping, headers map[string][]int, changes map[string]*string, columns []string) {
	for _, c := range columns {
		f := ""
		if changes[c] != nil {
			f = *changes[c]
		}
		if f != "" {
			for h, hf := range mapping {
				if h != c && hf == f && sharesFile(headers[h], headers[c]) {
					delete(mapping, h)
				}
			}
		}
		mapping[c] = f
	}
}

func sharesFile(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
