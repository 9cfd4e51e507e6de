package jobs

import (
	"context"

	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// CheckRows runs some rows of a finished job's files again, as its run
// read them but with opts (the run's, with its decided mapping, date
// orders and decimal marks) and edits and replacements applied: which rows, by the file id
// issues name ("" for an uploaded file), in rows. The files are read up
// to the last row asked for, in one of the node's check slots, which
// organizations share (Gate). A file gone from storage is source_deleted.
func (s *Sources) CheckRows(ctx context.Context, j job.Job, opts normalize.Options, edits []normalize.Edit, repl []normalize.Replacement, rows map[string][]int64) ([]normalize.RowCheck, error) {
	sch, err := schema.Parse(j.Schema)
	if err != nil {
		return nil, err
	}
	release, err := s.checks.Acquire(ctx, j.OrgID)
	if err != nil {
		return nil, err
	}
	defer release()
	dir, remove, err := s.workdir(ctx, "check", j.ID)
	if err != nil {
		return nil, err
	}
	defer remove()
	staged := j
	staged.Files = nil
	var sources []normalize.Source
	for _, f := range j.Files { // only the files rows are asked of
		fileID := ""
		if j.SourceType == job.SourceConnect {
			fileID = f.ID
		}
		if len(rows[fileID]) > 0 {
			staged.Files = append(staged.Files, f)
			sources = append(sources, normalize.Source{FileID: fileID})
		}
	}
	paths, err := s.stage(ctx, staged, dir)
	if err != nil {
		return nil, sourceDeleted(err)
	}
	for i, f := range staged.Files {
		sources[i].Open = func() (table.Reader, error) {
			return s.tables.Open(ctx, paths[i], f.Filename, opts.ReadOptions(s.limits))
		}
	}
	in := normalize.Input{Mode: j.Mode, Schema: sch, Options: opts, Sources: sources, Edits: edits, Replacements: repl}
	closeLists, err := s.openLists(ctx, j, &in)
	if err != nil {
		return nil, err
	}
	defer closeLists()
	if err := s.openHooks(ctx, j, &in); err != nil {
		return nil, err
	}
	return normalize.CheckRows(ctx, in, rows)
}

// EachRow runs every row of a finished job's files again, as CheckRows
// runs some, and hands each to fn in the files' order: how a job's
// records index is built (review.Records). It takes one of the node's
// check slots for the whole pass.
func (s *Sources) EachRow(ctx context.Context, j job.Job, opts normalize.Options, edits []normalize.Edit, repl []normalize.Replacement, fn func(normalize.RowCheck) error) error {
	sch, err := schema.Parse(j.Schema)
	if err != nil {
		return err
	}
	release, err := s.checks.Acquire(ctx, j.OrgID)
	if err != nil {
		return err
	}
	defer release()
	dir, remove, err := s.workdir(ctx, "records", j.ID)
	if err != nil {
		return err
	}
	defer remove()
	paths, err := s.stage(ctx, j, dir)
	if err != nil {
		return sourceDeleted(err)
	}
	sources := make([]normalize.Source, len(j.Files))
	for i, f := range j.Files {
		if j.SourceType == job.SourceConnect {
			sources[i].FileID = f.ID
		}
		sources[i].Open = func() (table.Reader, error) {
			return s.tables.Open(ctx, paths[i], f.Filename, opts.ReadOptions(s.limits))
		}
	}
	in := normalize.Input{Mode: j.Mode, Schema: sch, Options: opts, Sources: sources, Edits: edits, Replacements: repl}
	closeLists, err := s.openLists(ctx, j, &in)
	if err != nil {
		return err
	}
	defer closeLists()
	return normalize.EachRow(ctx, in, fn)
}

// CheckSlot waits for one of the node's check slots for an organization's
// work over a job's rows other than reading its files (a records index's
// filter or sort): it shares the node with CheckRows and EachRow.
func (s *Sources) CheckSlot(ctx context.Context, orgID string) (release func(), err error) {
	return s.checks.Acquire(ctx, orgID)
}
