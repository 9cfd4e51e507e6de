package export_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
)

// annotatedIssues are the issues of a file of four records: record 2 has
// an error on "age" and a warning on "joined", record 4 an error on the
// row as a whole (a missing column), record 3 a warning only.
const annotatedIssues = `{"row":null,"source_file":null,"column":"extra","field":null,"severity":"warning","code":"unmapped_column","message":"Column extra is not in the schema.","value":null}
{"row":2,"source_file":null,"column":"age","field":"age","severity":"error","code":"invalid_integer","message":"\"x\" is not a whole number.","value":"x"}
{"row":2,"source_file":null,"column":"joined","field":"joined","severity":"warning","code":"invalid_date","message":"two-digit year","value":"1/2/24"}
{"row":3,"source_file":null,"column":"joined","field":"joined","severity":"warning","code":"invalid_date","message":"two-digit year","value":"3/4/24"}
{"row":4,"source_file":null,"column":null,"field":"email","severity":"error","code":"required","message":"email is required.","value":null}
`

var annotatedRecords = [][]string{{"ann", "31", "2024-01-02"}, {"bob", "x", "1/2/24"}, {"cy", "40", "3/4/24"}, {"di", "22", "2024-05-06"}}

func writeAnnotated(t *testing.T, rejectedOnly bool) string {
	t.Helper()
	ann, err := export.ReadIssues(strings.NewReader(annotatedIssues))
	if err != nil {
		t.Fatal(err)
	}
	w, err := export.NewAnnotated(ann, rejectedOnly, export.XLSXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	if err := w.File("", "people.csv", []string{"name", "age", "joined"}); err != nil {
		t.Fatal(err)
	}
	for i, cells := range annotatedRecords {
		if err := w.Row(table.Record{Number: i + 1, Cells: cells}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "errors.xlsx")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(out); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func fillOf(t *testing.T, f *excelize.File, cell string) string {
	t.Helper()
	id, err := f.GetCellStyle("Rows", cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Fill.Color) == 0 {
		return ""
	}
	return st.Fill.Color[0]
}

func TestAnnotated_marksIssuesOnTheOriginalValues(t *testing.T) {
	t.Parallel()
	f, err := excelize.OpenFile(writeAnnotated(t, false))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if got := strings.Join(f.GetSheetList(), ","); got != "Rows,"+export.SummarySheetName {
		t.Fatalf("sheets %s", got)
	}
	rows, _ := f.GetRows("Rows")
	want := "tabnorm row|name|age|joined\n1|ann|31|2024-01-02\n2|bob|x|1/2/24\n3|cy|40|3/4/24\n4|di|22|2024-05-06"
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r, "|"))
	}
	if strings.Join(got, "\n") != want {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	fills := map[string]string{"C3": "FFC7CE", "D3": "FFE699", "D4": "FFE699", "A5": "FFC7CE", "B3": "", "C2": ""}
	for cell, want := range fills {
		if got := fillOf(t, f, cell); !strings.EqualFold(got, want) {
			t.Errorf("%s fill %q, want %q", cell, got, want)
		}
	}
	comments, err := f.GetComments("Rows")
	if err != nil {
		t.Fatal(err)
	}
	byCell := map[string]string{}
	for _, c := range comments {
		byCell[c.Cell] = c.Text
	}
	if len(byCell) != 4 || !strings.Contains(byCell["C3"], "is not a whole number") || !strings.Contains(byCell["A5"], "email is required") {
		t.Errorf("comments %q", byCell)
	}
	summary, _ := f.GetRows(export.SummarySheetName)
	var lines []string
	for _, r := range summary {
		lines = append(lines, strings.Join(r, "|"))
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{"field|code|severity|issues", "joined|invalid_date|warning|2", "age|invalid_integer|error|1", "email|required|error|1", "|unmapped_column|warning|1", "5 issues in all"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

func TestAnnotated_rejectedRowsOnly(t *testing.T) {
	t.Parallel()
	f, err := excelize.OpenFile(writeAnnotated(t, true))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	rows, _ := f.GetRows("Rows")
	if len(rows) != 3 || rows[1][0] != "2" || rows[2][0] != "4" {
		t.Fatalf("rows %q, want records 2 and 4", rows)
	}
	if fillOf(t, f, "C2") == "" || fillOf(t, f, "A3") == "" {
		t.Fatal("the rejected rows' cells are not marked")
	}
}

// TestAnnotated_readsBackAsTheOriginalTable: the reader recognizes the
// workbook, so a fixed one uploads as the file it was: the row numbers and
// the summary sheet are not data.
func TestAnnotated_readsBackAsTheOriginalTable(t *testing.T) {
	t.Parallel()
	path := writeAnnotated(t, false)
	r, err := formats.NewOpener().Open(context.Background(), path, "errors.xlsx", table.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	if got := strings.Join(r.Header(), ","); got != "name,age,joined" {
		t.Fatalf("header %s", got)
	}
	for i, want := range annotatedRecords {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Number != i+1 || strings.Join(rec.Cells, ",") != strings.Join(want, ",") {
			t.Fatalf("record %d: %d %q, want %q", i+1, rec.Number, rec.Cells, want)
		}
	}
	if _, err := r.Next(); err == nil {
		t.Fatal("a record past the table's")
	}
}

// TestAnnotated_pastASheet: a file longer than a sheet is a coded error,
// not a workbook without its last records.
func TestAnnotated_pastASheet(t *testing.T) {
	t.Parallel()
	ann, err := export.ReadIssues(strings.NewReader(annotatedIssues))
	if err != nil {
		t.Fatal(err)
	}
	w, err := export.NewAnnotated(ann, false, export.XLSXOptions{SheetRows: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	if err := w.File("", "people.csv", []string{"name", "age", "joined"}); err != nil {
		t.Fatal(err)
	}
	for i, cells := range annotatedRecords {
		err = w.Row(table.Record{Number: i + 1, Cells: cells})
		if i < 2 && err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
	}
	if domain.CodeOf(err) != domain.CodeInvalidRequest || !strings.Contains(err.Error(), "rows=rejected") {
		t.Fatalf("the record past the sheet: %v", err)
	}
}
