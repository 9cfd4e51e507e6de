package xlsx

import (
	"reflect"
	"testing"

	"github.com/tabnorm/tabnorm/domain/table"
)

// TestXLSXFooterNotes: notes below a sheet's table, after a blank row,
// are skipped and counted as in a text file (skipped_footer);
// footer_rows "none" reads them, a count skips the last rows, and short
// rows all along the table keep the notes as rows.
func TestXLSXFooterNotes(t *testing.T) {
	t.Parallel()
	table4 := [][]any{{"site", "week", "nitrate"}, {"A1", 10, 2.5}, {"A2", 10, 3.25}, {"B1", 11, 0.5}, {"B2", 11, 1.75}}
	notes := [][]any{nil, {"Source: regional water office, 2024."}, {"* provisional values"}}
	withNotes := sheetLayout{rows: append(append([][]any{}, table4...), notes...)}
	commented := sheetLayout{rows: append([][]any{table4[0], table4[1], {"checked by hand"}}, append(table4[2:], notes...)...)}
	for name, c := range map[string]struct {
		layout  sheetLayout
		footer  int
		firsts  []string
		footers []int
		blanks  []int
	}{
		"notes_skipped":           {withNotes, 0, []string{"A1", "A2", "B1", "B2"}, []int{6, 7}, []int{5}},
		"footer_none":             {withNotes, table.FooterNone, []string{"A1", "A2", "B1", "B2", "Source: regional water office, 2024.", "* provisional values"}, nil, []int{5}},
		"last_two_skipped":        {withNotes, 2, []string{"A1", "A2", "B1", "B2"}, []int{6, 7}, []int{5}},
		"last_one_skipped":        {withNotes, 1, []string{"A1", "A2", "B1", "B2", "Source: regional water office, 2024."}, []int{7}, []int{5}},
		"short_rows_in_the_table": {commented, 0, []string{"A1", "checked by hand", "A2", "B1", "B2", "Source: regional water office, 2024.", "* provisional values"}, nil, []int{6}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := c.layout.write(t)
			opts := table.ReadOptions{FooterRows: c.footer}
			r, err := openFile(t.Context(), path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got := readAll(t, path, opts)
			if got.err != nil || !reflect.DeepEqual(firstCells(got.recs), c.firsts) {
				t.Fatalf("records %q, %v; want first cells %q", cellsOf(got.recs), got.err, c.firsts)
			}
			for {
				if _, err := r.Next(); err != nil {
					break
				}
			}
			det := r.(table.Describer).Detection()
			if !reflect.DeepEqual(det.FooterRows, c.footers) || det.FooterCount != len(c.footers) || !reflect.DeepEqual(det.BlankRows, c.blanks) {
				t.Errorf("footer rows %v (%d), blank rows %v; want %v, %v", det.FooterRows, det.FooterCount, det.BlankRows, c.footers, c.blanks)
			}
		})
	}
}
