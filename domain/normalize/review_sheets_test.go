package normalize

import (
	"context"
	"reflect"
	"testing"

	"github.com/tabnorm/tabnorm/domain/normalize/review"
	"github.com/tabnorm/tabnorm/domain/table"
)

// workbookReader is a memReader that says it read one sheet of a
// workbook of several, as the XLSX reader does.
type workbookReader struct {
	memReader
	read   string
	sheets []table.Sheet
}

func (w *workbookReader) Detection() table.Detection {
	return table.Detection{Format: table.XLSX, Sheet: w.read}
}
func (w *workbookReader) Sheets() ([]table.Sheet, error) { return w.sheets, nil }

// TestReview_listsTheWorkbooksSheets: the sample keeps a workbook's
// sheets (through storage too), and the review lists them with the one
// read marked; a text file lists none.
func TestReview_listsTheWorkbooksSheets(t *testing.T) {
	t.Parallel()
	sheets := []table.Sheet{
		{Name: "Notes", Rows: 1, Complete: true, FirstRow: []string{"read me"}},
		{Name: "People", Rows: 3, Complete: true, FirstRow: []string{"name", "active"}},
		{Name: "Empty", Complete: true},
	}
	book := Source{FileID: "file_b", Open: func() (table.Reader, error) {
		return &workbookReader{memReader: memReader{rows: [][]string{{"name", "active"}, {"Anna", "ja"}, {"Bo", "true"}}}, read: "People", sheets: sheets}, nil
	}}
	samples, err := ReadSamples(context.Background(), []Source{source("file_a", []string{"name"}, []string{"Cleo"}), book})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := MarshalSamples(samples)
	if err != nil {
		t.Fatal(err)
	}
	again, err := UnmarshalSamples(stored)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Sheets != nil || !reflect.DeepEqual(again[1].Sheets, sheets) {
		t.Fatalf("stored sheets: %+v / %+v", again[0].Sheets, again[1].Sheets)
	}
	rev, err := RunReview(context.Background(), ReviewInput{Mode: ModeNormalize, Schema: mustSchema(t, germanSchema), Samples: again})
	if err != nil {
		t.Fatal(err)
	}
	file := "file_b"
	want := []review.Sheet{
		{SourceFile: &file, Name: "Notes", Rows: 1, Complete: true, FirstRow: []string{"read me"}},
		{SourceFile: &file, Name: "People", Rows: 3, Complete: true, FirstRow: []string{"name", "active"}, Selected: true},
		{SourceFile: &file, Name: "Empty", Complete: true, FirstRow: []string{}},
	}
	if !reflect.DeepEqual(rev.Sheets, want) {
		t.Fatalf("sheets %+v", rev.Sheets)
	}
}
