package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/table"
)

// ChooseSheet reads the sample of a job awaiting review again from
// another sheet of its workbooks (options.sheet, by name), and computes
// the review of it: its columns, preview and counts. The mapping chosen
// so far stays: a choice for a column the sheet does not have does
// nothing.
func (s *Reviewer) ChooseSheet(ctx context.Context, p identity.Principal, jobID, sheet string) (View, error) {
	j, st, err := s.awaitingReview(ctx, p, jobID)
	if err != nil {
		return View{}, err
	}
	before, err := s.sampleBytes(ctx, j)
	if err != nil {
		return View{}, err
	}
	samples, err := normalize.UnmarshalSamples(before)
	if err != nil {
		return View{}, err
	}
	if err := checkSheet(samples, sheet); err != nil {
		return View{}, err
	}
	return s.reread(ctx, p, j, st, before, func(o *normalize.Options) { o.Sheet = sheet }, func(err error) error { return unreadableSheet(sheet, err) })
}

// ChooseHeaderRow reads the sample of a job awaiting review again with
// another row of its files as the header (1-based, counted after
// options.skip_rows; 0: no header row, the columns named by position),
// and computes the review of it. The row becomes the job's
// options.header_row, so the confirmed run reads the files with it.
func (s *Reviewer) ChooseHeaderRow(ctx context.Context, p identity.Principal, jobID string, row int) (View, error) {
	j, st, err := s.awaitingReview(ctx, p, jobID)
	if err != nil {
		return View{}, err
	}
	if row < 0 || row > table.MaxHeaderRow {
		msg := fmt.Sprintf("must be 0 (no header row) to %d", table.MaxHeaderRow)
		return View{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The header row " + msg + ".",
			Fields: []domain.FieldError{{Field: "header_row", Message: msg}}}
	}
	before, err := s.sampleBytes(ctx, j)
	if err != nil {
		return View{}, err
	}
	h := normalize.HeaderRow(row)
	if row == 0 {
		h = normalize.HeaderNone
	}
	return s.reread(ctx, p, j, st, before, func(o *normalize.Options) { o.HeaderRow = h }, func(err error) error {
		var f *normalize.Failure
		if !errors.As(err, &f) || f.Code == domain.CodeInternalError {
			return err
		}
		msg := fmt.Sprintf("The files cannot be read with row %d as the header: %s", row, f.Message)
		return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: msg, Fields: []domain.FieldError{{Field: "header_row", Message: f.Message}}}
	})
}

// reread reads a job's sample again with its options changed by set, and
// stores the review of it with those options; unreadable says why the
// files could not be read so.
func (s *Reviewer) reread(ctx context.Context, p identity.Principal, j job.Job, st settings, before []byte, set func(*normalize.Options),
	unreadable func(error) error) (View, error) {
	jobID := j.ID
	set(&st.options)
	fresh, err := s.sources.Resample(ctx, j, st.options)
	if err != nil {
		return View{}, unreadable(err)
	}
	stored, err := normalize.MarshalSamples(fresh)
	if err != nil {
		return View{}, err
	}
	learned, err := s.learnedOf(ctx, j)
	if err != nil {
		return View{}, err
	}
	lists, closeLists, err := s.sources.OpenSchemaLists(ctx, p.OrgID, st.schema)
	if err != nil {
		return View{}, err
	}
	defer closeLists()
	kept := false
	updated, err := s.jobs.Update(ctx, p.OrgID, jobID, func(j *job.Job) error {
		if j.Status != job.AwaitingReview {
			return j.NotAwaitingReview()
		}
		st, err := settingsOf(*j) // the mapping as it is now
		if err != nil {
			return err
		}
		set(&st.options)
		rev, err := normalize.RunReview(ctx, normalize.ReviewInput{Mode: st.mode, Schema: st.schema, Options: st.options, Learned: learned, Samples: fresh, Lists: lists})
		if err != nil {
			return err
		}
		// The sample is stored while the job's row is held, so that two
		// choices at once store theirs in the order they are saved.
		if err := s.keepSample(ctx, j.OrgID, j.ID, stored); err != nil {
			return err
		}
		mapping, err := s.render.Mapping(rev.Mapping())
		if err != nil {
			return err
		}
		kept = true
		j.Options = st.options.JSON()
		return j.Revise(rev, mapping)
	})
	if err != nil {
		if kept { // the job kept its review: it keeps the sample it was made from
			if rerr := s.keepSample(context.WithoutCancel(ctx), j.OrgID, j.ID, before); rerr != nil {
				s.log.ErrorContext(ctx, "restore a review's sample", "job_id", j.ID, "error", rerr)
			}
		}
		return View{}, err
	}
	return s.view(updated)
}

// keepSample stores a job's samples where the review's later changes read
// them (sampleBytes).
func (s *Reviewer) keepSample(ctx context.Context, orgID, jobID string, stored []byte) error {
	return jobs.KeepSample(ctx, s.blobs, orgID, jobID, stored)
}

func (s *Reviewer) sampleBytes(ctx context.Context, j job.Job) ([]byte, error) {
	r, err := s.blobs.Open(ctx, jobs.SampleKey(j.OrgID, j.ID), 0, -1)
	if err != nil {
		return nil, fmt.Errorf("sample of job %s: %w", j.ID, err)
	}
	defer func() { _ = r.Close() }()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("sample of job %s: %w", j.ID, err)
	}
	return b, nil
}

// checkSheet refuses a sheet that a workbook among the job's files does
// not list, and a job without workbooks.
func checkSheet(samples []normalize.Sample, sheet string) error {
	invalid := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: msg, Fields: []domain.FieldError{{Field: "sheet", Message: msg}}}
	}
	if sheet == "" {
		return invalid("Send the name of a sheet, as the review's sheets list it.")
	}
	books := 0
	for _, smp := range samples {
		if smp.Format != table.XLSX {
			continue
		}
		books++
		if smp.Sheets == nil { // sampled before sheets were listed: the reader decides
			continue
		}
		if !slices.ContainsFunc(smp.Sheets, func(sh table.Sheet) bool { return sh.Name == sheet }) {
			names := make([]string, 0, min(len(smp.Sheets), 10))
			for _, sh := range smp.Sheets[:min(len(smp.Sheets), 10)] {
				names = append(names, fmt.Sprintf("%q", sh.Name))
			}
			return invalid("The workbook has no sheet %q; its sheets are %s.", sheet, strings.Join(names, ", "))
		}
	}
	if books == 0 {
		return invalid("The job's files are not workbooks: they have no sheets to choose from.")
	}
	return nil
}

// unreadableSheet tells that the chosen sheet cannot be read: the request
// chose it, so it is refused, and the job awaits its review as before.
func unreadableSheet(sheet string, err error) error {
	var f *normalize.Failure
	if !errors.As(err, &f) || f.Code == domain.CodeInternalError {
		return err
	}
	msg := fmt.Sprintf("The sheet %q cannot be read: %s", sheet, f.Message)
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: msg, Fields: []domain.FieldError{{Field: "sheet", Message: f.Message}}}
}
