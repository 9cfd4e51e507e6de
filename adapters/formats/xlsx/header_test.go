package xlsx

import (
	"archive/zip"
	"reflect"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Workbooks whose header is not their first row, laid out as reports are:
// title rows, a subtitle, key-value lines, a blank row, then the header
// (bold, bordered), sometimes a units row or a first data row of text,
// then typed numbers and dates. And the cases where the first row is the
// header, or where there is no header at all, which must read as before.

// sheetLayout is a workbook's first sheet: rows from A1 down (nil values
// are empty cells, a nil row is a blank row), the rows whose cells get a
// style (1-based row → style), the columns whose data cells get one
// (1-based column → style, from row dataFrom on), and merged ranges.
type sheetLayout struct {
	rows      [][]any
	rowStyle  map[int]*excelize.Style
	colStyle  map[int]*excelize.Style
	dataFrom  int
	merges    [][2]string
	allBorder bool // every filled cell bordered (a gridded table)
}

var (
	boldStyle     = &excelize.Style{Font: &excelize.Font{Bold: true}}
	headerStyle   = &excelize.Style{Font: &excelize.Font{Bold: true}, Border: []excelize.Border{{Type: "bottom", Color: "000000", Style: 2}}}
	titleStyle    = &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}}
	italicStyle   = &excelize.Style{Font: &excelize.Font{Italic: true}}
	dateStyle     = &excelize.Style{NumFmt: 14}
	monthStyle    = &excelize.Style{NumFmt: 17} // mmm-yy
	currencyStyle = &excelize.Style{NumFmt: 4}
	gridStyle     = &excelize.Style{Border: []excelize.Border{{Type: "left", Style: 1}, {Type: "right", Style: 1}, {Type: "top", Style: 1}, {Type: "bottom", Style: 1}}}
	gridBold      = &excelize.Style{Font: &excelize.Font{Bold: true}, Border: []excelize.Border{{Type: "left", Style: 1}, {Type: "right", Style: 1}, {Type: "top", Style: 1}, {Type: "bottom", Style: 1}}}
)

func (l sheetLayout) write(t *testing.T) string {
	t.Helper()
	return formatstest.Workbook(t, func(f *excelize.File) {
		style := func(s *excelize.Style) int {
			id, err := f.NewStyle(s)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		grid := style(gridStyle)
		for i, row := range l.rows {
			for j, v := range row {
				if v == nil {
					continue
				}
				cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
				if err := f.SetCellValue("Sheet1", cell, v); err != nil {
					t.Fatal(err)
				}
				s, ok := l.rowStyle[i+1]
				if cs, isData := l.colStyle[j+1]; isData && i+1 >= l.dataFrom {
					s, ok = cs, true
				}
				switch {
				case ok:
					_ = f.SetCellStyle("Sheet1", cell, cell, style(s))
				case l.allBorder:
					_ = f.SetCellStyle("Sheet1", cell, cell, grid)
				}
			}
		}
		for _, m := range l.merges {
			if err := f.MergeCell("Sheet1", m[0], m[1]); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// headerCase is what a workbook must read as: the header's names, where
// the Detection says it is and which rows it skipped above it, and every
// record (its sheet row and cells), none dropped or shifted.
type headerCase struct {
	name      string
	layout    sheetLayout
	header    []string
	headerRow int
	skipped   []int
	records   []numbered
}

type numbered struct {
	row   int // the sheet row
	cells []string
}

// day is a date cell's serial: 2024-01-01 + n days.
func day(n int) float64 { return 45292 + float64(n) }

func TestXLSXHeaderBelowTitleRows(t *testing.T) {
	t.Parallel()
	for _, c := range headerCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.layout.write(t)
			got := readAll(t, path, table.ReadOptions{})
			if got.err != nil {
				t.Fatal(got.err)
			}
			if !reflect.DeepEqual(got.header, c.header) {
				t.Errorf("header %q, want %q", got.header, c.header)
			}
			det := detectionOf(t, path, table.ReadOptions{})
			if det.HeaderRow != c.headerRow || !reflect.DeepEqual(det.SkippedRows, c.skipped) || det.SkippedCount != len(c.skipped) {
				t.Errorf("detected header row %d, skipped %v (%d); want %d, %v", det.HeaderRow, det.SkippedRows, det.SkippedCount, c.headerRow, c.skipped)
			}
			var recs []numbered
			for _, r := range got.recs {
				recs = append(recs, numbered{r.Number + c.headerRow, r.Cells})
			}
			if !reflect.DeepEqual(recs, c.records) {
				t.Errorf("records\n%v\nwant\n%v", recs, c.records)
			}
			// The detection given back as options reads the same table.
			again := readAll(t, path, table.ReadOptions{HeaderRow: det.HeaderRow, NoHeader: det.HeaderRow == 0})
			if again.err != nil || !reflect.DeepEqual(again.header, got.header) || !reflect.DeepEqual(cellsOf(again.recs), cellsOf(got.recs)) {
				t.Errorf("read with the detection as options: %q %q %v", again.header, cellsOf(again.recs), again.err)
			}
		})
	}
}

//nolint:maintidx // a table of cases
func headerCases() []headerCase {
	sales := [][]any{
		{"EMEA", "Alice", 12, 340.5, day(30)},
		{"EMEA", "Bruno", 7, 120.25, day(31)},
		{"APAC", "Chen", 30, 990, day(45)},
		{"AMER", "Dana", 3, 45.75, day(60)},
	}
	salesOut := [][]string{
		{"EMEA", "Alice", "12", "340.5", "2024-01-31"},
		{"EMEA", "Bruno", "7", "120.25", "2024-02-01"},
		{"APAC", "Chen", "30", "990", "2024-02-15"},
		{"AMER", "Dana", "3", "45.75", "2024-03-01"},
	}
	at := func(first int, rows [][]string) []numbered {
		out := make([]numbered, len(rows))
		for i, r := range rows {
			out[i] = numbered{first + i, r}
		}
		return out
	}
	rows := func(head ...[]any) [][]any { return append(head, sales...) }
	dates := map[int]*excelize.Style{5: dateStyle}
	salesHeader := []any{"Region", "Rep", "Units", "Revenue", "Closed"}
	salesNames := []string{"Region", "Rep", "Units", "Revenue", "Closed"}
	return []headerCase{
		{
			// A title, a subtitle line as wide as 60 % of the table, a
			// blank row, the header in bold with a border under it.
			name: "title_block_bold_bordered_header",
			layout: sheetLayout{
				rows: rows(
					[]any{"Quarterly sales report"},
					[]any{"Region: all", nil, "Period: Q1 2024", nil, "Currency: EUR"},
					nil,
					salesHeader),
				rowStyle: map[int]*excelize.Style{1: titleStyle, 4: headerStyle},
				colStyle: dates, dataFrom: 5,
				merges: [][2]string{{"A1", "E1"}},
			},
			header: salesNames, headerRow: 4, skipped: []int{1, 2},
			records: at(5, salesOut),
		},
		{
			// The header, in bold, over a first record that is text
			// throughout (no amount yet, no date), then typed records:
			// the text rules alone took that record for the header.
			name: "text_first_record_under_bold_header",
			layout: sheetLayout{
				rows: rows(
					[]any{"Open orders"},
					nil,
					salesHeader,
					[]any{"EMEA", "Eve", "pending", "not invoiced", "open"}),
				rowStyle: map[int]*excelize.Style{1: titleStyle, 3: boldStyle},
				colStyle: dates, dataFrom: 4,
			},
			header: salesNames, headerRow: 3, skipped: []int{1},
			records: at(4, append([][]string{{"EMEA", "Eve", "pending", "not invoiced", "open"}}, salesOut...)),
		},
		{
			// The same without bold: the columns' own formats (currency,
			// date) are on the first record's cells as on the data's, not
			// on the header's.
			name: "text_first_record_styled_as_the_data",
			layout: sheetLayout{
				rows: rows(
					[]any{"Open orders"},
					nil,
					salesHeader,
					[]any{"EMEA", "Eve", "pending", "not invoiced", "open"}),
				rowStyle: map[int]*excelize.Style{1: titleStyle},
				colStyle: map[int]*excelize.Style{3: currencyStyle, 4: currencyStyle, 5: dateStyle}, dataFrom: 4,
			},
			header: salesNames, headerRow: 3, skipped: []int{1},
			records: at(4, append([][]string{{"EMEA", "Eve", "pending", "not invoiced", "open"}}, salesOut...)),
		},
		{
			// A measurement report: a merged title, a subtitle line, a
			// blank row, the header (bold, bordered), a units row in
			// italics, then the readings. The units row is a record (its
			// text in number columns is reported when typed), never the
			// header.
			name: "subtitle_and_units_row",
			layout: sheetLayout{
				rows: [][]any{
					{"Weather station Vienna"},
					{"Period: 2024", nil, "Source: national service", "Interval: daily"},
					nil,
					{"Date", "Temperature", "Rain", "Wind"},
					{nil, "°C", "mm", "km/h"},
					{day(0), -1.5, 0.2, 14},
					{day(1), 0.5, 0, 22},
					{day(2), 2.25, 4.5, 9},
				},
				rowStyle: map[int]*excelize.Style{1: titleStyle, 4: headerStyle, 5: italicStyle},
				colStyle: map[int]*excelize.Style{1: dateStyle}, dataFrom: 6,
				merges: [][2]string{{"A1", "D1"}},
			},
			header: []string{"Date", "Temperature", "Rain", "Wind"}, headerRow: 4, skipped: []int{1, 2},
			records: at(5, [][]string{{"", "°C", "mm", "km/h"}, {"2024-01-01", "-1.5", "0.2", "14"}, {"2024-01-02", "0.5", "0", "22"}, {"2024-01-03", "2.25", "4.5", "9"}}),
		},
		{
			// Yearly figures: the header's years are typed numbers, as
			// typed into a spreadsheet; a title above.
			name: "typed_years_header",
			layout: sheetLayout{
				rows: [][]any{
					{"GDP growth, %"},
					{"Country", "Indicator", 2021, 2022, 2023},
					{"AT", "GDP", 4.6, 4.8, -0.8},
					{"DE", "GDP", 3.2, 1.8, -0.3},
					{"FR", "GDP", 6.4, 2.5, 0.9},
				},
				rowStyle: map[int]*excelize.Style{1: titleStyle, 2: boldStyle},
			},
			header: []string{"Country", "Indicator", "2021", "2022", "2023"}, headerRow: 2, skipped: []int{1},
			records: at(3, [][]string{{"AT", "GDP", "4.6", "4.8", "-0.8"}, {"DE", "GDP", "3.2", "1.8", "-0.3"}, {"FR", "GDP", "6.4", "2.5", "0.9"}}),
		},
		{
			// Monthly figures: the header's months are date cells (each
			// month's first day, shown "mmm yy"), over amounts; a title
			// above. Typed, yet names, as the years above.
			name: "typed_months_header",
			layout: sheetLayout{
				rows: [][]any{
					{"Cash flow by month"},
					{"Account", day(0), day(31), day(60)},
					{"Sales", 1200.5, 980, 1430},
					{"Rent", -800, -800, -800},
					{"Payroll", -2100, -2100, -2250.25},
				},
				rowStyle: map[int]*excelize.Style{1: titleStyle, 2: monthStyle},
			},
			header: []string{"Account", "2024-01-01", "2024-02-01", "2024-03-01"}, headerRow: 2, skipped: []int{1},
			records: at(3, [][]string{{"Sales", "1200.5", "980", "1430"}, {"Rent", "-800", "-800", "-800"}, {"Payroll", "-2100", "-2100", "-2250.25"}}),
		},
		{
			// Key-value lines above the table hold typed values (a date, a
			// total): they are not where the data starts.
			name: "key_value_lines_above",
			layout: sheetLayout{
				rows: rows(
					[]any{"Report date", day(5)},
					[]any{"Total revenue", 1496.5},
					nil,
					salesHeader),
				rowStyle: map[int]*excelize.Style{1: dateStyle},
				colStyle: dates, dataFrom: 5,
			},
			header: salesNames, headerRow: 4, skipped: []int{1, 2},
			records: at(5, salesOut),
		},
		{
			// A one-column list under a title merged across three columns:
			// the title's one cell is as wide as the list.
			name: "merged_title_over_a_list",
			layout: sheetLayout{
				rows: [][]any{
					{"Newsletter subscribers, March"},
					{"email"},
					{"ann@example.org"},
					{"bo@example.org"},
					{"cy@example.org"},
				},
				rowStyle: map[int]*excelize.Style{1: titleStyle},
				merges:   [][2]string{{"A1", "C1"}},
			},
			header: []string{"email"}, headerRow: 2, skipped: []int{1},
			records: at(3, [][]string{{"ann@example.org"}, {"bo@example.org"}, {"cy@example.org"}}),
		},
		// The first row is the header: it stays so.
		{
			name:   "first_row_plain_header",
			layout: sheetLayout{rows: rows(salesHeader), colStyle: dates, dataFrom: 2},
			header: salesNames, headerRow: 1, records: at(2, salesOut),
		},
		{
			name:   "first_row_header_everything_bold",
			layout: sheetLayout{rows: rows(salesHeader), rowStyle: map[int]*excelize.Style{1: boldStyle, 2: boldStyle, 3: boldStyle, 4: boldStyle, 5: boldStyle}},
			header: salesNames, headerRow: 1,
			records: at(2, [][]string{
				{"EMEA", "Alice", "12", "340.5", "45322"}, {"EMEA", "Bruno", "7", "120.25", "45323"},
				{"APAC", "Chen", "30", "990", "45337"}, {"AMER", "Dana", "3", "45.75", "45352"},
			}),
		},
		{
			name:   "first_row_header_gridded_table",
			layout: sheetLayout{rows: rows(salesHeader), rowStyle: map[int]*excelize.Style{1: gridBold}, colStyle: dates, dataFrom: 2, allBorder: true},
			header: salesNames, headerRow: 1, records: at(2, salesOut),
		},
		{
			name: "first_row_header_text_only",
			layout: sheetLayout{rows: [][]any{
				{"name", "city", "team"}, {"Ann", "Graz", "blue"}, {"Bo", "Linz", "red"}, {"Cy", "Wels", "blue"},
			}, rowStyle: map[int]*excelize.Style{1: boldStyle}},
			header: []string{"name", "city", "team"}, headerRow: 1,
			records: at(2, [][]string{{"Ann", "Graz", "blue"}, {"Bo", "Linz", "red"}, {"Cy", "Wels", "blue"}}),
		},
		// No header at all: the first row holds typed values, so it is
		// data; the columns are named by position and no row is lost.
		{
			name:   "no_header",
			layout: sheetLayout{rows: sales, colStyle: dates, dataFrom: 1},
			header: []string{"column_1", "column_2", "column_3", "column_4", "column_5"}, headerRow: 0,
			records: at(1, salesOut),
		},
		{
			name:   "no_header_under_a_title",
			layout: sheetLayout{rows: append([][]any{{"Export 2024"}}, sales...), colStyle: dates, dataFrom: 2},
			header: []string{"column_1", "column_2", "column_3", "column_4", "column_5"}, headerRow: 0,
			records: at(1, append([][]string{{"Export 2024", "", "", "", ""}}, salesOut...)),
		},
		// A first row whose cells are of their column's kind (numbers
		// among numbers, URLs among URLs) and that nothing marks as a
		// header is data: no row is taken for a preamble.
		{
			name: "value_and_type_name_pairs_typed",
			layout: sheetLayout{
				rows:     [][]any{{12, "integer"}, {3.5, "number"}, {day(1), "date"}, {true, "boolean"}, {"hello", "string"}},
				rowStyle: map[int]*excelize.Style{3: dateStyle},
			},
			header: []string{"column_1", "column_2"}, headerRow: 0,
			records: at(1, [][]string{{"12", "integer"}, {"3.5", "number"}, {"2024-01-02", "date"}, {"TRUE", "boolean"}, {"hello", "string"}}),
		},
		{
			name: "value_and_type_name_pairs_as_text",
			layout: sheetLayout{
				rows:     [][]any{{"12", "integer"}, {"3.5", "number"}, {day(1), "date"}, {"true", "boolean"}},
				rowStyle: map[int]*excelize.Style{3: dateStyle},
			},
			header: []string{"column_1", "column_2"}, headerRow: 0,
			records: at(1, [][]string{{"12", "integer"}, {"3.5", "number"}, {"2024-01-02", "date"}, {"true", "boolean"}}),
		},
		{
			// The text says the first row is data (EMEA recurs below):
			// the text row under it is no header either, nothing marking it.
			name: "first_row_recurs_then_text_then_typed",
			layout: sheetLayout{rows: [][]any{
				{"EMEA", "Ann", "none"}, {"LATAM", "Bob", "tbd"},
				{"EMEA", "Cy", "https://c.example/", 12}, {"APAC", "Dan", "https://d.example/", 30}, {"EMEA", "Eve", "https://e.example/", 7},
			}},
			header: []string{"column_1", "column_2", "column_3", "column_4"}, headerRow: 0,
			records: at(1, [][]string{
				{"EMEA", "Ann", "none", ""}, {"LATAM", "Bob", "tbd", ""},
				{"EMEA", "Cy", "https://c.example/", "12"}, {"APAC", "Dan", "https://d.example/", "30"}, {"EMEA", "Eve", "https://e.example/", "7"},
			}),
		},
		{
			name:   "rows_of_urls",
			layout: sheetLayout{rows: [][]any{{"https://a.example/x", "https://b.example/y"}, {"https://a.example/z", "https://b.example/w"}, {"https://c.example/", "https://d.example/q"}}},
			header: []string{"column_1", "column_2"}, headerRow: 0,
			records: at(1, [][]string{{"https://a.example/x", "https://b.example/y"}, {"https://a.example/z", "https://b.example/w"}, {"https://c.example/", "https://d.example/q"}}),
		},
		{
			name:   "one_row_of_urls",
			layout: sheetLayout{rows: [][]any{{"https://a.example/x", "https://b.example/y"}}},
			header: []string{"column_1", "column_2"}, headerRow: 0,
			records: at(1, [][]string{{"https://a.example/x", "https://b.example/y"}}),
		},
		{
			// A header over URLs stays one; so does a bold first row of URLs.
			name:   "header_over_urls",
			layout: sheetLayout{rows: [][]any{{"home", "docs"}, {"https://a.example/x", "https://b.example/y"}, {"https://a.example/z", "https://b.example/w"}}},
			header: []string{"home", "docs"}, headerRow: 1,
			records: at(2, [][]string{{"https://a.example/x", "https://b.example/y"}, {"https://a.example/z", "https://b.example/w"}}),
		},
		{
			// A first data row of missing values (NA) is no header.
			name:   "na_first_data_row",
			layout: sheetLayout{rows: [][]any{{"site", "week", "nitrate"}, {"NA", "NA", "NA"}, {"A1", 10, 2.5}, {"A2", 10, 3.25}, {"B1", 11, 0.5}}},
			header: []string{"site", "week", "nitrate"}, headerRow: 1,
			records: at(2, [][]string{{"NA", "NA", "NA"}, {"A1", "10", "2.5"}, {"A2", "10", "3.25"}, {"B1", "11", "0.5"}}),
		},
		{
			// A header with blank and repeated names is narrower than its
			// rows of numbers, and still their header.
			name:   "blank_and_repeated_names_over_numbers",
			layout: sheetLayout{rows: [][]any{{nil, "var2", nil, "var2"}, {1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}},
			header: []string{"", "var2", "", "var2"}, headerRow: 1,
			records: at(2, [][]string{{"1", "2", "3", "4"}, {"5", "6", "7", "8"}, {"9", "10", "11", "12"}}),
		},
		{
			name:   "blank_and_repeated_names_over_numbers_as_text",
			layout: sheetLayout{rows: [][]any{{nil, "var2", nil, "var2"}, {"1", "2", "3", "4"}, {"5", "6", "7", "8"}, {"9", "10", "11", "12"}}},
			header: []string{"", "var2", "", "var2"}, headerRow: 1,
			records: at(2, [][]string{{"1", "2", "3", "4"}, {"5", "6", "7", "8"}, {"9", "10", "11", "12"}}),
		},
		{
			// A row of notes above the header, in one cell as wide as the
			// table's text, is no header.
			name: "notes_in_one_cell_above_the_header",
			layout: sheetLayout{rows: append([][]any{
				{"Data as of 2024; provisional figures, revised quarterly"},
				salesHeader}, sales...), colStyle: dates, dataFrom: 3},
			header: salesNames, headerRow: 2, skipped: []int{1},
			records: at(3, salesOut),
		},
		{
			name: "notes_spread_over_cells_above_the_header",
			layout: sheetLayout{rows: append([][]any{
				{"Data as of 2024", "provisional figures", "revised quarterly", "source: ledger"},
				salesHeader}, sales...), colStyle: dates, dataFrom: 3},
			header: salesNames, headerRow: 2, skipped: []int{1},
			records: at(3, salesOut),
		},
		{
			name: "notes_as_wide_as_the_header",
			layout: sheetLayout{rows: append([][]any{
				{"Data as of 2024", "provisional figures", "revised quarterly", "source: ledger", "see the notes sheet"},
				salesHeader}, sales...), colStyle: dates, dataFrom: 3},
			header: salesNames, headerRow: 2, skipped: []int{1},
			records: at(3, salesOut),
		},
		{
			name: "notes_then_a_blank_row_above_the_header",
			layout: sheetLayout{rows: append([][]any{
				{"Data as of 2024", "provisional figures", "revised quarterly", "source: ledger"},
				nil,
				salesHeader}, sales...), colStyle: dates, dataFrom: 4},
			header: salesNames, headerRow: 3, skipped: []int{1},
			records: at(4, salesOut),
		},
		{
			name: "bold_first_row_of_numbers_over_numbers",
			layout: sheetLayout{
				rows:     [][]any{{"Site", "1", "2", "3"}, {"A", 4, 5, 6}, {"B", 7, 8, 9}},
				rowStyle: map[int]*excelize.Style{1: boldStyle},
			},
			header: []string{"Site", "1", "2", "3"}, headerRow: 1,
			records: at(2, [][]string{{"A", "4", "5", "6"}, {"B", "7", "8", "9"}}),
		},
	}
}

// TestXLSXStyleLooks: the styles part says which cell formats are bold or
// bordered as writers put it: <b/>, <b val="0"/> (not bold), <b
// val="true"/>, border edges with a style or with style "none"; the fonts
// and borders of differential formats (conditional formatting) are not
// the cells' own.
func TestXLSXStyleLooks(t *testing.T) {
	t.Parallel()
	styles := `<numFmts count="0"/><fonts count="4"><font><sz val="11"/></font><font><b/></font><font><b val="0"/></font><font><b val="true"/><i/></font></fonts>` +
		`<borders count="3"><border><left/><right/><top/><bottom/><diagonal/></border><border><left style="none"/><bottom style="none"/></border><border><bottom style="thin"><color auto="1"/></bottom></border></borders>` +
		`<cellXfs count="7"><xf numFmtId="0" fontId="0" borderId="0"/><xf numFmtId="0" fontId="1" borderId="0" applyFont="1"/><xf fontId="2"/><xf fontId="3" borderId="1"/>` +
		`<xf fontId="0" borderId="2"/><xf numFmtId="14" fontId="1" borderId="2"/><xf fontId="9" borderId="9"/></cellXfs>` +
		`<dxfs count="1"><dxf><font><b/></font><border><bottom style="thick"/></border></dxf></dxfs>`
	p := formatstest.WriteFile(t, "s.xlsx", formatstest.RawWorkbook(`<sheetData/>`, "", styles, false))
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got, err := readDateStyles(t.Context(), &zr.Reader, "xl/styles.xml")
	if err != nil {
		t.Fatal(err)
	}
	wantLooks := []byte{0, lookBold, 0, lookBold, lookBorder, lookBold | lookBorder, 0}
	if !reflect.DeepEqual(got.looks, wantLooks) || len(got.kinds) != 7 || got.kinds[5] != fmtDate {
		t.Fatalf("looks %v kinds %v; want looks %v and cell format 5 a date", got.looks, got.kinds, wantLooks)
	}
}

// TestXLSXHeaderFromRawMarkup: a workbook written by hand as a writer
// other than excelize does (no r attributes, <b val="1"/>, the merges
// after the rows): a bordered header under a merged title band and a
// subtitle, over a first record of text.
func TestXLSXHeaderFromRawMarkup(t *testing.T) {
	t.Parallel()
	styles := `<fonts count="2"><font><sz val="10"/></font><font><b val="1"/><sz val="10"/></font></fonts>` +
		`<borders count="2"><border/><border><top style="thin"/><bottom style="medium"/></border></borders>` +
		`<cellXfs count="4"><xf numFmtId="0" fontId="0" borderId="0"/><xf numFmtId="0" fontId="1" borderId="0"/><xf numFmtId="0" fontId="0" borderId="1"/><xf numFmtId="14" fontId="0" borderId="0"/></cellXfs>`
	is := func(s string) string { return `<c t="inlineStr"><is><t>` + s + `</t></is></c>` }
	sheet := `<sheetData>` +
		`<row><c t="inlineStr" s="1"><is><t>Shipments</t></is></c><c s="1"/><c s="1"/></row>` +
		`<row>` + is("Depot: North") + `<c/>` + is("Week 5") + `</row>` +
		`<row/>` +
		`<row><c t="inlineStr" s="2"><is><t>Parcel</t></is></c><c t="inlineStr" s="2"><is><t>Sent</t></is></c><c t="inlineStr" s="2"><is><t>Weight</t></is></c></row>` +
		`<row>` + is("P-100") + is("not yet") + is("unknown") + `</row>` +
		`<row>` + is("P-101") + `<c s="3"><v>45323</v></c><c><v>1.5</v></c></row>` +
		`<row>` + is("P-102") + `<c s="3"><v>45324</v></c><c><v>0.25</v></c></row>` +
		`</sheetData><mergeCells count="1"><mergeCell ref="A1:C1"/></mergeCells>`
	p := formatstest.WriteFile(t, "raw.xlsx", formatstest.RawWorkbook(sheet, "", styles, false))
	got := readAll(t, p, table.ReadOptions{})
	det := detectionOf(t, p, table.ReadOptions{})
	want := [][]string{{"P-100", "not yet", "unknown"}, {"P-101", "2024-02-01", "1.5"}, {"P-102", "2024-02-02", "0.25"}}
	if got.err != nil || !reflect.DeepEqual(got.header, []string{"Parcel", "Sent", "Weight"}) || !reflect.DeepEqual(cellsOf(got.recs), want) {
		t.Fatalf("header %q records %q err %v", got.header, cellsOf(got.recs), got.err)
	}
	if det.HeaderRow != 4 || !reflect.DeepEqual(det.SkippedRows, []int{1, 2}) {
		t.Fatalf("detection %+v", det)
	}
}
