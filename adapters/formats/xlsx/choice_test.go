package xlsx

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// prose are paragraphs as a METHODS sheet holds them, one a row.
var prose = []string{
	"Samples were collected weekly from the three sites between March and October, stored at 4 °C.",
	"Each sample was measured twice; the table on the data sheet gives the mean of both readings.",
	"Values below the detection limit are given as half the limit, as is usual in this field.",
	"The site codes follow the regional register; see the register's documentation for their meaning.",
}

// notesWorkbook writes a workbook whose sheets are filled in order: name,
// then its rows from A1 (a string is a one-cell row).
func notesWorkbook(t *testing.T, hidden string, sheets ...any) string {
	t.Helper()
	return formatstest.Workbook(t, func(f *excelize.File) {
		for i := 0; i+1 < len(sheets); i += 2 {
			name := sheets[i].(string)
			if i == 0 {
				must(t, f.SetSheetName("Sheet1", name))
			} else if _, err := f.NewSheet(name); err != nil {
				t.Fatal(err)
			}
			for r, row := range sheets[i+1].([][]any) {
				must(t, f.SetSheetRow(name, fmt.Sprintf("A%d", r+1), &row))
			}
		}
		if hidden != "" {
			must(t, f.SetSheetVisible(hidden, false))
		}
	})
}

func proseRows() [][]any {
	rows := [][]any{{"METHODS"}}
	for _, p := range prose {
		rows = append(rows, []any{p})
	}
	return rows
}

func siteRows() [][]any {
	return [][]any{{"site", "week", "nitrate"}, {"A1", 10, 2.5}, {"A2", 10, 3.25}, {"B1", 11, 0.5}, {"B2", 11, 1.75}}
}

// TestXLSXNotesSheetPassedOver: a first sheet of notes (prose) before a
// sheet holding a regular table: the table is read, and the Detection
// names the sheet passed over. A sheet the caller names is read, notes or
// not.
func TestXLSXNotesSheetPassedOver(t *testing.T) {
	t.Parallel()
	path := notesWorkbook(t, "", "METHODS", proseRows(), "data", siteRows())
	got := readAll(t, path, table.ReadOptions{})
	det := detectionOf(t, path, table.ReadOptions{})
	if got.err != nil || !reflect.DeepEqual(got.header, []string{"site", "week", "nitrate"}) || len(got.recs) != 4 {
		t.Fatalf("header %q, %d records, %v", got.header, len(got.recs), got.err)
	}
	if det.Sheet != "data" || det.SheetPassedOver != "METHODS" {
		t.Errorf("read sheet %q, passed over %q; want data, METHODS", det.Sheet, det.SheetPassedOver)
	}
	for _, named := range []string{"METHODS", "1"} {
		det := detectionOf(t, path, table.ReadOptions{Sheet: named})
		if det.Sheet != "METHODS" || det.SheetPassedOver != "" || det.OtherSheets != nil {
			t.Errorf("sheet %q named: read %q, passed over %q, others %v", named, det.Sheet, det.SheetPassedOver, det.OtherSheets)
		}
	}
}

// TestXLSXOtherSheets: without evidence that the first sheet is not the
// table, it is read, and the other visible sheets with data are listed
// with their rows (a hidden sheet and an empty one are not).
func TestXLSXOtherSheets(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		sheets []any
		read   string
		others []table.Sheet
	}{
		"two_tables": {
			sheets: []any{"sites", siteRows(), "empty", [][]any{}, "secret", siteRows(), "more", siteRows()[:3]},
			read:   "sites", others: []table.Sheet{{Name: "more", Rows: 3, Complete: true}},
		},
		// Notes, but no regular table elsewhere: the notes are read.
		"notes_and_notes": {
			sheets: []any{"METHODS", proseRows(), "README", proseRows()[:3]},
			read:   "METHODS", others: []table.Sheet{{Name: "README", Rows: 3, Complete: true}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := notesWorkbook(t, "secret", c.sheets...)
			det := detectionOf(t, path, table.ReadOptions{})
			if det.Sheet != c.read || det.SheetPassedOver != "" || !reflect.DeepEqual(det.OtherSheets, c.others) {
				t.Errorf("read %q, passed over %q, others %+v; want %q and %+v", det.Sheet, det.SheetPassedOver, det.OtherSheets, c.read, c.others)
			}
			if named := detectionOf(t, path, table.ReadOptions{Sheet: c.read}); named.OtherSheets != nil {
				t.Errorf("with the sheet named, others %+v", named.OtherSheets)
			}
		})
	}
}
