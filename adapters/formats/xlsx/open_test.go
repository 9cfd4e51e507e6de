package xlsx

import (
	"context"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// openFile opens a workbook as the format's Opener does once it has told
// XLSX: an error that is not one of the contract's kinds is unreadable.
func openFile(ctx context.Context, path string, opts table.ReadOptions) (table.Reader, error) {
	r, err := Open(ctx, path, opts)
	if err != nil {
		return nil, detect.Unreadable(err)
	}
	return r, nil
}

type parsed struct {
	format table.Format
	header []string
	recs   []table.Record
	err    error
}

// readAll reads a workbook to its end, keeping copies of the records.
func readAll(t *testing.T, path string, opts table.ReadOptions) parsed {
	t.Helper()
	r, err := openFile(context.Background(), path, opts)
	if err != nil {
		return parsed{err: err}
	}
	defer r.Close()
	recs, err := formatstest.Records(r)
	return parsed{format: r.Format(), header: r.Header(), recs: recs, err: err}
}

func firstCells(recs []table.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Cells[0]
	}
	return out
}
