package normalize

import (
	"context"

	"github.com/tabnorm/tabnorm/domain"
)

// EachRow runs every record of the files again, as CheckRows runs some,
// and hands each to fn in the files' order: what a job's records are now,
// its edits applied. Memory stays that of one batch; fn's error stops the
// pass and is returned. As in CheckRows, uniqueness against the other
// rows is a run's, not this pass's.
func EachRow(ctx context.Context, in Input, fn func(RowCheck) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicFailure(v)
		}
	}()
	if in.Schema == nil || in.Mode == ModeInfer {
		return fail(domain.CodeInvalidSchema, "reading records needs a target schema")
	}
	w := newWriter(Input{Mode: in.Mode, Schema: in.Schema, Options: in.Options, Learned: in.Learned, Edits: in.Edits, Replacements: in.Replacements, MaxRows: 1 << 62, MaxIssues: 1 << 62,
		Lists: in.Lists}, Output{Rows: discard{}, Issues: discard{}})
	defer w.closeIndexes()
	for _, src := range in.Sources {
		if err := w.eachRow(ctx, src, fn); err != nil {
			return err
		}
	}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (w *writer) eachRow(ctx context.Context, src Source, fn func(RowCheck) error) error {
	r, err := src.Open()
	if err != nil {
		return readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	p, err := w.plan(ctx, src, r)
	if err != nil {
		return err
	}
	p.keepRejected = true
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := &batch{} // a batch's cells are its own: fn may keep a row's
		if err := b.fill(r); err != nil {
			return readerFailure(ctx, err, src.FileID)
		}
		p.process(b, w.seed)
		for i := range b.rows {
			if err := fn(p.rowCheck(b, &b.recs[i], &b.rows[i])); err != nil {
				return err
			}
		}
		if len(b.recs) < batchSize {
			return nil
		}
	}
}
