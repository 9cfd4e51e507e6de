package formats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/test/corpus"
)

// corpusDir is the shared corpus of real-world files beside the repository.
func corpusDir(t *testing.T) string { return corpus.Dir(t) }

type parsed struct {
	format table.Format
	header []string
	recs   []table.Record
	err    error
}

func readAll(t *testing.T, path string, opts table.ReadOptions) parsed {
	t.Helper()
	r, err := NewOpener().Open(context.Background(), path, filepath.Base(path), opts)
	if err != nil {
		return parsed{err: err}
	}
	defer r.Close()
	recs, err := formatstest.Records(r)
	return parsed{format: r.Format(), header: r.Header(), recs: recs, err: err}
}

func cellsOf(recs []table.Record) [][]string {
	out := make([][]string, len(recs))
	for i, r := range recs {
		out[i] = r.Cells
	}
	return out
}

// cell is an expected value: record index (0-based among records), column, text.
type cell struct {
	rec, col int
	want     string
}

// issue is an expected reader warning or row issue on a record.
type issue struct {
	rec, col int
	code     string
}

// keyed is an expected value in the record whose first cell is key.
type keyed struct {
	key  string
	col  int
	want string
}

type corpusCase struct {
	file    string
	opts    table.ReadOptions
	format  table.Format
	header  []string // a prefix of the expected header
	width   int      // the header's width, when checked
	count   int      // records
	cells   []cell
	keyed   []keyed
	numbers []int   // the records' numbers, when checked
	issues  []issue // every issue the records carry, when checked
	err     error   // expected failure kind, instead of the above
	errHas  string  // and a phrase of its message
	// detected is the reader's Detection in short (see detectedText), when checked.
	detected string
	note     string
}

// detectedText is a Detection in short: encoding/confidence, dialect,
// header row and the rows skipped above it.
func detectedText(d table.Detection) string {
	return fmt.Sprintf("%s/%s d=%q q=%q e=%q h=%d s=%v", d.Encoding, d.EncodingConfidence, d.Delimiter, d.Quote, d.Escape, d.HeaderRow, d.SkippedRows)
}

var corpusCases = []corpusCase{
	{file: "calamine/any_sheets.xlsx", format: table.XLSX, header: []string{"column_1", "column_2"}, count: 3, cells: []cell{{0, 0, "1"}, {1, 0, "3"}, {2, 1, "6"}},
		note: "no header row in the sheet: its first row holds typed numbers, so it is data and the columns are named by position; the note in A5, below a blank row, is skipped (skipped_footer)"},
	{file: "calamine/date.xlsx", format: table.XLSX, header: []string{"column_1", "column_2"}, count: 3, cells: []cell{{0, 0, "2021-01-01"}, {0, 1, "15"}, {1, 0, "2021-01-02"}, {2, 0, "10.6320601851852"}},
		note: "no header row (a typed date in the first row); an elapsed-time format is a duration: the number is kept"},
	{file: "calamine/date_1904.xlsx", format: table.XLSX, header: []string{"column_1", "column_2"}, count: 3, cells: []cell{{0, 0, "2021-01-01"}, {1, 0, "2021-01-02"}}},
	{file: "calamine/date_iso.xlsx", format: table.XLSX, header: []string{"column_1"}, count: 6, cells: []cell{{0, 0, "2021-01-01"}, {1, 0, "2021-01-01T10:10:10"}, {2, 0, "10:10:10"}}},
	{file: "calamine/empty_shared_string_value.xlsx", format: table.XLSX, header: []string{"Name", "City", "Status"}, count: 2,
		cells: []cell{{0, 0, "Alice"}, {0, 1, ""}, {0, 2, "Active"}, {1, 1, "Berlin"}}},
	{file: "calamine/empty_sheet.xlsx", err: table.ErrUnreadable, errHas: `no sheet of the workbook has data; the sheets are ["Sheet1"]`},
	{file: "calamine/errors.xlsx", format: table.XLSX, header: []string{"column_1"}, count: 7, cells: []cell{{0, 0, ""}},
		issues: []issue{{0, 0, "cell_error"}, {1, 0, "cell_error"}, {2, 0, "cell_error"}, {3, 0, "cell_error"}, {4, 0, "cell_error"}, {5, 0, "cell_error"}, {6, 0, "cell_error"}},
		note:   "no header row (error cells are values, never names): every error is a missing value with a cell_error issue"},
	{file: "calamine/has_x000D_.xlsx", format: table.XLSX, header: []string{"ABC\r\nDEF"}, count: 0},
	{file: "calamine/header-row.xlsx", format: table.XLSX, header: []string{"Columns", "Column A", "Column B", "Column C"}, count: 1,
		cells: []cell{{0, 0, "put data here"}, {0, 3, "3"}}, note: "the note above the table is passed over"},
	{file: "calamine/inlineStr_cdata.xlsx", format: table.XLSX, header: []string{"Hello CDATA", "World"}, count: 1, cells: []cell{{0, 0, "12345"}, {0, 1, "NormalText"}}},
	{file: "calamine/issue_261.xlsx", format: table.XLSX, header: []string{"String Value 12", "String Value 30"}, width: 7, count: 51,
		cells: []cell{{0, 0, "2023-03-15"}, {1, 3, "903"}}, note: "rows and cells without r attributes; the title and the key-value rows (row 6: a label, a date, a number) above the table's labelled header row are passed over"},
	{file: "calamine/string-ref.xlsx", format: table.XLSX, header: []string{"col1"}, count: 1, cells: []cell{{0, 0, "-8086931554011838357"}}},
	{file: "commons-csv/test.csv", format: table.CSV, header: []string{"A", "B", "C", "D"}, count: 10, detected: `UTF-8/certain d="," q="\"" e="" h=1 s=[]`,
		cells: []cell{{0, 0, "# plain values"}, {3, 2, " g"}, {5, 0, " i "}, {5, 1, ` " j " `}, {5, 2, ` " k "`}, {5, 3, " l "}, {9, 0, "# EOF on next line"}},
		note:  "test_rfc4180.txt: # lines are data (no comment character); blank records skipped; padding after a closing quote dropped; a quote after blanks is a character (no cell holds a delimiter that would say otherwise)"},
	{file: "commons-csv/test_rfc4180.txt", format: table.CSV, count: 17, note: "an expected-output text file, read as the CSV it happens to be"},
	{file: "csv-spectrum/csvs/comma_in_quotes.csv", format: table.CSV, header: []string{"first", "last", "address", "city", "zip"}, count: 1, cells: []cell{{0, 3, "Anytown, WW"}, {0, 4, "08123"}}},
	{file: "csv-spectrum/csvs/empty.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 2},
	{file: "csv-spectrum/csvs/empty_crlf.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 2},
	{file: "csv-spectrum/csvs/escaped_quotes.csv", format: table.CSV, header: []string{"a", "b"}, count: 2, cells: []cell{{0, 1, `ha "ha" ha`}}},
	{file: "csv-spectrum/csvs/json.csv", format: table.CSV, header: []string{"key", "val"}, count: 1, cells: []cell{{0, 1, `{"type": "Point", "coordinates": [102.0, 0.5]}`}}},
	{file: "csv-spectrum/csvs/location_coordinates.csv", format: table.CSV, header: []string{"Contact Phone Number", "Location Coordinates", "Cities", "Counties"}, count: 1,
		cells: []cell{{0, 0, "2095257564"}, {0, 2, "Modesto"}}, note: "bare quotes in unquoted fields are kept literally"},
	{file: "csv-spectrum/csvs/newlines.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 3, cells: []cell{{1, 0, "Once upon \na time"}}},
	{file: "csv-spectrum/csvs/newlines_crlf.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 3, cells: []cell{{1, 0, "Once upon \r\na time"}}},
	{file: "csv-spectrum/csvs/quotes_and_newlines.csv", format: table.CSV, header: []string{"a", "b"}, count: 2, cells: []cell{{0, 1, "ha \n\"ha\" \nha"}}},
	{file: "csv-spectrum/csvs/simple.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 1, cells: []cell{{0, 2, "3"}}},
	{file: "csv-spectrum/csvs/simple_crlf.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 1, cells: []cell{{0, 2, "3"}}},
	{file: "csv-spectrum/csvs/utf8.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 2, cells: []cell{{1, 2, "ʤ"}}},
	{file: "csvkit/mac_newlines.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 2, cells: []cell{{1, 0, "Once upon\ra time"}, {1, 2, "6"}}},
	{file: "csvkit/null_byte.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 1, cells: []cell{{0, 0, "\x00"}, {0, 2, "3"}}},
	{file: "csvkit/sheets.xlsx", format: table.XLSX, header: []string{"text", "date", "integer", "boolean", "float", "datetime"}, count: 5, note: "the first sheet is empty: the first sheet with data is read"},
	{file: "csvkit/sheets.xlsx", opts: table.ReadOptions{Sheet: "ʤ"}, format: table.XLSX, header: []string{"a", "b", "c"}, count: 1, cells: []cell{{0, 0, "1"}}},
	{file: "csvkit/sheets.xlsx", opts: table.ReadOptions{Sheet: "2"}, format: table.XLSX, header: []string{"text", "date", "integer", "boolean", "float", "datetime"}, count: 5,
		cells: []cell{{0, 1, "1971-01-01"}, {0, 5, "1971-01-01T04:14:00"}}},
	{file: "csvkit/test.xlsx", format: table.XLSX, header: []string{"text", "date", "integer", "boolean", "float", "datetime", "empty_column", ""}, width: 8, count: 5,
		cells: []cell{{0, 1, "1971-01-01"}, {1, 1, "1948-01-01"}, {2, 1, "1920-01-01"}, {0, 5, "1971-01-01T04:14:00"}, {1, 5, "1948-01-01T14:57:13"}, {2, 5, "1920-01-01"},
			{0, 3, "TRUE"}, {2, 3, "FALSE"}, {2, 4, "41800000.01"}, {1, 7, "Extra data beyond headers will be trimmed"}, {4, 0, "Unicode! Σ"}, {4, 6, ""}},
		note: "1904 epoch; a datetime at midnight is a whole day, so a date; the unlabeled column H is kept under a blank header"},
	{file: "csvkit/test_header_newline.csv", format: table.CSV, header: []string{"\t\n\v\f\r start \t\n\v\f\r end \t\n\v\f\r", "b", "c"}, count: 1, cells: []cell{{0, 0, "d"}}},
	{file: "csvkit/test_utf16_big.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 2, cells: []cell{{1, 2, "ʤ"}}},
	{file: "csvkit/test_utf16_little.csv", format: table.CSV, header: []string{"a", "b", "c"}, count: 2, cells: []cell{{1, 2, "ʤ"}}},
	{file: "csvkit/testjson_multiline.json", format: table.JSONL, header: []string{"a", "b", "d"}, count: 2, cells: []cell{{0, 0, "2"}, {0, 2, ""}, {1, 2, "4"}}},
	{file: "csvkit/testxlsx_converted.csv", format: table.CSV, header: []string{"text", "date"}, count: 5},
	{file: "csvlint/inconsistent-line-endings.csv", format: table.CSV, header: []string{"Foo", "Bsr", "Baz"}, count: 2, cells: []cell{{1, 2, "Doge"}}},
	{file: "csvlint/invalid-byte-sequence.csv", format: table.CSV, header: []string{"Data", "Dependencia Origem", "Histórico"}, count: 23, cells: []cell{{0, 5, "100.00"}}},
	{file: "csvlint/invalid_many_rows.csv", format: table.CSV, header: []string{"Foo", "Bar", "Baz"}, count: 9, numbers: []int{1, 2, 3, 4, 5, 6, 8, 9, 11},
		cells: []cell{{2, 2, `3" `}, {3, 1, "two"}}, issues: []issue{{2, 2, "stray_quote"}},
		note: "the stray quote is kept with a warning; the blank line 7 and the all-empty line 10 are skipped but numbered"},
	{file: "csvw/test009.csv", format: table.CSV, header: []string{"GID", "On Street", "Species", "Trim Cycle", "Inventory Date"}, count: 3,
		cells: []cell{{0, 1, "ADDISON AV"}, {0, 4, "10/18/2010"}, {2, 4, "6/2/2010"}}},
	{file: "data.table/1680-fread-header-encoding.csv", format: table.CSV, header: []string{"Ort", "Straße", "Bezeichnung"}, count: 4, cells: []cell{{0, 2, `Ministerium "Pestalozzi"`}}},
	{file: "data.table/russellCRCRLF.csv", format: table.CSV, header: []string{"Index Name", "Date", "Value Without Dividends", "Value With Dividends"}, count: 19,
		cells: []cell{{0, 0, "Russell Microcap® Value Index"}, {18, 3, "357.97"}}},
	{file: "data.table/unescaped.csv", format: table.CSV, header: []string{"No", "Comment", "Type"}, count: 2,
		cells: []cell{{1, 1, `The problem is: reading table, and also "a problem, yes." keep going on.`}}, note: "stray quotes kept literally; row 1 differs from fread's repair"},
	{file: "duckdb/different_schemas.ndjson", format: table.JSONL, header: []string{"id", "name"}, count: 5, cells: []cell{{1, 1, ""}, {3, 1, ""}, {4, 0, "5"}}},
	{file: "duckdb/inconsistent_schemas.ndjson", format: table.JSONL, header: []string{"id", "name"}, count: 5, cells: []cell{{0, 0, "1"}, {0, 1, ""}, {1, 0, "2"}, {2, 0, "[3]"}},
		note: "null is missing; an array is its compact JSON text"},
	{file: "duckdb/trailing_content.ndjson", format: table.JSONL, header: []string{"a"}, count: 3, cells: []cell{{2, 0, "3"}}, issues: []issue{{1, -1, "malformed_json"}}},
	{file: "duckdb/unterminated_quotes.ndjson", format: table.JSONL, header: []string{"id", "name"}, count: 5, numbers: []int{1, 2, 3, 4, 5},
		cells: []cell{{3, 1, "Broadcast News"}}, issues: []issue{{2, -1, "malformed_json"}}},
	{file: "frictionless/adjust-floating-point-error.xlsx", format: table.XLSX, header: []string{"Sample Name", "peak PO4", "actual PO4 (formula)", "actual PO4 (values)"}, count: 5,
		cells: []cell{{0, 2, "242.26"}}, note: "numbers as Excel shows them: 15 significant digits"},
	{file: "frictionless/blank-headers.csv", format: table.CSV, header: []string{"id", "", "age"}, count: 2},
	{file: "frictionless/blank-rows-no-fields.csv", format: table.CSV, header: []string{"id", "name", "age"}, count: 2, cells: []cell{{1, 1, "Julie"}}},
	{file: "frictionless/bom.csv", format: table.CSV, header: []string{"id", "name"}, count: 2, cells: []cell{{1, 1, "中国人"}}},
	{file: "frictionless/cast-int-to-string-issue-1251.xlsx", format: table.XLSX, header: []string{"A", "B", "C", "D", "E"}, count: 2, cells: []cell{{0, 0, "001"}, {1, 0, "002"}}},
	{file: "frictionless/countries.csv", format: table.CSV, header: []string{"id", "neighbor_id", "name", "population"}, count: 5, cells: []cell{{0, 1, "Ireland"}},
		detected: `UTF-8/certain d="," q="\"" e="" h=1 s=[]`, note: "the # line above the header is a comment: skipped and reported (skipped_comments); the header is the first record"},
	{file: "frictionless/defective-rows.csv", format: table.CSV, header: []string{"id", "name", "age"}, count: 2},
	{file: "frictionless/duplicate-headers.csv", format: table.CSV, header: []string{"id", "name", "id", "age", "id"}, count: 2, cells: []cell{{0, 4, "001101"}}},
	{file: "frictionless/encoding-issue-274.csv", format: table.CSV, header: []string{"id", "name"}, count: 507},
	{file: "frictionless/escaping.csv", format: table.CSV, header: []string{"ID", " Test"}, count: 3, note: "no escape character in API.md: backslashes are literal"},
	{file: "frictionless/issue-1066-largecellsize.csv", format: table.CSV, header: []string{"Description", "status"}, count: 19, cells: []cell{{18, 1, "test"}},
		detected: `UTF-8/certain d="," q="\"" e="" h=1 s=[]`, note: "apostrophes in the text do not make ' the quote; a quoted cell cut by the sniffing sample's end is no quoting problem"},
	{file: "frictionless/latin1.csv", format: table.CSV, header: []string{"id", "name"}, count: 2, cells: []cell{{1, 1, "©"}}, detected: `windows-1252/guessed d="," q="\"" e="" h=1 s=[]`},
	{file: "frictionless/merged-cells.xlsx", format: table.XLSX, header: []string{"data"}, count: 0},
	{file: "frictionless/table-with-accents.csv", format: table.CSV, header: []string{"Classement", "Quartier", "Date", "Année"}, count: 638, cells: []cell{{0, 4, "0,611553068"}}},
	{file: "frictionless/table.jsonl", format: table.JSONL, header: []string{"id", "name"}, count: 2, cells: []cell{{0, 0, "1"}, {1, 1, "中国人"}}},
	{file: "frictionless/table.tsv", format: table.TSV, header: []string{"id", "name"}, count: 3, cells: []cell{{2, 1, `\N`}}},
	{file: "frictionless/wide.csv", err: table.ErrUnreadable, errHas: "the file has 9074 columns (on line 1); the limit is 1000", note: "over the 1,000-column limit"},
	{file: "libvroom/large_field.csv", format: table.CSV, header: []string{"id", "description"}, count: 1},
	{file: "messytables/excel_pasting.csv", format: table.CSV, header: []string{"Year", "2000", "2001"}, width: 9, count: 14, cells: []cell{{0, 0, "Timber"}, {0, 1, "2,666"}},
		keyed: []keyed{{"Machinery and \nequipment", 1, "27,173"}, {"Total", 0, "Total"}},
		note:  "title, unit and blank rows above the header are passed over; the two footnotes below the blank row are notes, skipped and reported"},
	{file: "messytables/mixedGLB.csv", format: table.CSV, header: []string{"Year", "Jan", "Feb"}, width: 19, count: 133, cells: []cell{{0, 0, "1880"}, {0, 14, "****"}, {132, 0, "2012"}}},
	{file: "messytables/spanish_chars.csv", format: table.CSV, header: []string{"GF_ID", "FN_ID", "SF_ID", "GF", "F", "SF", "Gasto total 2011", "Descripción"}, count: 114, note: "the source line below the blank row is a note, skipped and reported", cells: []cell{{0, 6, "229,932.50"}}},
	{file: "messytables/utf-16le_encoded.csv", format: table.CSV, header: []string{"Organisation_code", "Organisation_name"}, count: 327, cells: []cell{{0, 1, "Enfield PCT"}}},
	{file: "messytables/weird_head_padding.csv", format: table.CSV, header: []string{"", "1985", "1993"}, width: 11, count: 76, detected: `UTF-8/certain d=";" q="\"" e="" h=12 s=[3 4 6 7 8 9]`,
		keyed: []keyed{{"      Gefäßchirurgie", 1, "."}, {"      Gefäßchirurgie", 2, "379"}}},
	{file: "phpspreadsheet/NumberFormatTest.de.csv", format: table.CSV, header: []string{"column_1", "column_2", "column_3"}, count: 5,
		cells: []cell{{0, 0, "-123"}, {0, 2, "12.345,67"}, {1, 0, "123,4567"}, {2, 0, "-1.234,567"}, {3, 0, "WAHR"}, {4, 1, "TRUE"}}, detected: `UTF-8/certain d="," q="\"" e="" h=0 s=[]`,
		note: "no header row in the file (a first record of numbers only): columns are named by position and no record is lost; ragged rows are passed through"},
	{file: "phpspreadsheet/premiere.utf16be.csv", format: table.CSV, header: []string{"première", "second", "troisième"}, count: 1, cells: []cell{{0, 2, "sixième"}}},
	{file: "phpspreadsheet/sep.csv", format: table.CSV, header: []string{"A", "1"}, count: 1, cells: []cell{{0, 0, "2"}, {0, 1, "3"}}},
	{file: "qsv/FCOServices_TransparencySpend_May2011.csv", format: table.CSV, header: []string{"Department", "Entity", "Payment Date"}, count: 4, cells: []cell{{0, 7, "47,072.02"}, {0, 2, "11-May-11"}}},
	{file: "qsv/NYC311-5.jsonl", format: table.JSONL, header: []string{"Unique Key", "Created Date"}, count: 5, cells: []cell{{0, 0, "34675190"}, {0, 1, "10/31/2016 11:07:15 PM"}}},
	{file: "qsv/excel-1904-epoch.xlsx", format: table.XLSX, header: []string{"item", "date"}, count: 2, cells: []cell{{0, 1, "2024-01-15"}, {1, 1, "2020-07-04"}}},
	{file: "qsv/excel-large-floats.xlsx", format: table.XLSX, header: []string{"A"}, count: 1, cells: []cell{{0, 0, "9.22337203685478E+19"}}},
	{file: "qsv/excel-numeric-header.xlsx", format: table.XLSX, header: []string{"location ", "2020", "2021", "2022"}, count: 2, cells: []cell{{1, 3, "6"}}},
	{file: "qsv/excel-rounding.xlsx", format: table.XLSX, header: []string{"column 1", "large_negative_float"}, count: 2, cells: []cell{{0, 1, "-100.01"}, {1, 5, "0.02"}}},
	{file: "qsv/excel-xlsx.xlsx", format: table.XLSX, header: []string{"URL", "City", "number", "date"}, count: 8, cells: []cell{{0, 2, "42"}, {0, 3, "2001-09-11T08:30:00"}, {1, 3, "not a date"}, {2, 2, "3.14159265358979"}, {2, 3, "2021-01-06"}, {3, 3, "123.45"}}},
	{file: "qsv/excel-xlsx.xlsx", opts: table.ReadOptions{Sheet: "4"}, format: table.XLSX, header: []string{"int", "float", "bool", "date", "duration", "string", "emojis", "foreign"}, count: -1,
		cells: []cell{{0, 2, "TRUE"}, {0, 3, "2001-09-11"}, {0, 4, "0.430555555555556"}, {1, 6, "🍔"}, {2, 3, "1941-12-07"}}, note: "an elapsed-time cell keeps its number"},
	{file: "qsv/excel-xlsx.xlsx", opts: table.ReadOptions{Sheet: "cellerrors"}, format: table.XLSX, header: []string{"col1", "col 2", "column-3"}, count: 9,
		cells:  []cell{{1, 1, ""}, {3, 1, "33.3333333333333"}, {7, 1, "Hello"}},
		issues: []issue{{1, 1, "cell_error"}, {1, 2, "cell_error"}, {5, 0, "cell_error"}, {5, 1, "cell_error"}, {5, 2, "cell_error"}, {6, 2, "cell_error"}}},
	{file: "qsv/excel-xlsx.xlsx", opts: table.ReadOptions{Sheet: "firstnonemptyrow"}, format: table.XLSX, header: []string{"col1", "col2", "col3", "col4"}, count: 5, cells: []cell{{2, 3, "3.333333"}},
		note: "the table starts at row 13: the empty rows above it are passed over"},
	{file: "qsv/excel-xlsx.xlsx", opts: table.ReadOptions{Sheet: "safe_header_name_test"}, format: table.XLSX, count: -1,
		header: []string{"col1", "  col with leading and trailing spaces.  ", "123_starts_with_123", "With * / special ? ! Characters. ", "col1", "col1"}},
	{file: "qsv/spendover25kdownloadSep.csv", format: table.CSV, header: []string{"Department", "Entity", "Date of Payment", "Expense Type", "Expense Area", "Supplier", "Transaction No", " Amount in Sterling "},
		count: 189, cells: []cell{{0, 5, "Appleby Health Centre"}, {0, 6, "Exeter 23/09/2011"}, {0, 7, " 27,275.25 "}, {1, 6, "0081135561"}}},
	{file: "rust-csv/strange.csv", format: table.CSV, header: []string{"column_1", "column_2"}, count: 7, cells: []cell{{0, 0, `"Hacksaw" Jim Duggan`}, {1, 0, `Bret "Hit Man" Hart`}, {2, 0, "# We're not sure when Rafael started, so omit the year."}},
		detected: `UTF-8/certain d=";" q="\"" e="\\" h=0 s=[]`, note: "no header: the first record's year is among years; backslash-escaped quotes are sniffed; a # line with no # line above it is data"},
}

func TestCorpusConformance(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	for _, c := range corpusCases {
		name := c.file
		if c.opts.Sheet != "" {
			name += "#" + c.opts.Sheet
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := readAll(t, filepath.Join(dir, c.file), c.opts)
			if c.err != nil {
				if !errors.Is(got.err, c.err) || !strings.Contains(got.err.Error(), c.errHas) {
					t.Fatalf("err = %v, want %v with %q", got.err, c.err, c.errHas)
				}
				return
			}
			if got.err != nil {
				t.Fatalf("unexpected error: %v", got.err)
			}
			if c.detected != "" {
				if _, det := readDetected(t, filepath.Join(dir, c.file), c.opts); detectedText(det) != c.detected {
					t.Errorf("detected %s, want %s", detectedText(det), c.detected)
				}
			}
			for _, check := range corpusChecks {
				check(t, c, got)
			}
		})
	}
}

// corpusChecks hold a reading to a corpus case, each to the parts the
// case states.
var corpusChecks = []func(t *testing.T, c corpusCase, got parsed){
	checkCorpusShape, checkCorpusCells, checkCorpusKeyed, checkCorpusNumbers, checkCorpusIssues,
}

// checkCorpusShape: the format, the header's start and width, the count,
// and record numbers that increase.
func checkCorpusShape(t *testing.T, c corpusCase, got parsed) {
	t.Helper()
	if got.format != c.format {
		t.Errorf("format %s, want %s", got.format, c.format)
	}
	if len(got.header) < len(c.header) || !slices.Equal(got.header[:len(c.header)], c.header) {
		t.Fatalf("header %q, want it to start %q", got.header, c.header)
	}
	if c.width > 0 && len(got.header) != c.width {
		t.Errorf("header has %d columns, want %d", len(got.header), c.width)
	}
	if c.count >= 0 && len(got.recs) != c.count {
		t.Errorf("%d records, want %d", len(got.recs), c.count)
	}
	for i, rec := range got.recs {
		if i > 0 && rec.Number <= got.recs[i-1].Number {
			t.Fatalf("record numbers not increasing: %d after %d", rec.Number, got.recs[i-1].Number)
		}
	}
}

// checkCorpusCells: cells by record and column.
func checkCorpusCells(t *testing.T, c corpusCase, got parsed) {
	t.Helper()
	for _, want := range c.cells {
		if want.rec >= len(got.recs) || want.col >= len(got.recs[want.rec].Cells) {
			t.Errorf("no cell [%d][%d]", want.rec, want.col)
			continue
		}
		if v := got.recs[want.rec].Cells[want.col]; v != want.want {
			t.Errorf("cell [%d][%d] = %q, want %q", want.rec, want.col, v, want.want)
		}
	}
}

// checkCorpusKeyed: cells of the records whose first cell is a key.
func checkCorpusKeyed(t *testing.T, c corpusCase, got parsed) {
	t.Helper()
	for _, want := range c.keyed {
		found := false
		for _, rec := range got.recs {
			if len(rec.Cells) <= want.col || rec.Cells[0] != want.key {
				continue
			}
			found = true
			if rec.Cells[want.col] != want.want {
				t.Errorf("record %q column %d = %q, want %q", want.key, want.col, rec.Cells[want.col], want.want)
			}
		}
		if !found {
			t.Errorf("no record %q", want.key)
		}
	}
}

// checkCorpusNumbers: the records' numbers in their file.
func checkCorpusNumbers(t *testing.T, c corpusCase, got parsed) {
	t.Helper()
	if c.numbers == nil {
		return
	}
	var nums []int
	for _, rec := range got.recs {
		nums = append(nums, rec.Number)
	}
	if !slices.Equal(nums, c.numbers) {
		t.Errorf("record numbers %v, want %v", nums, c.numbers)
	}
}

// checkCorpusIssues: the row and cell issues the reader reported.
func checkCorpusIssues(t *testing.T, c corpusCase, got parsed) {
	t.Helper()
	if c.issues == nil {
		return
	}
	var issues []issue
	for i, rec := range got.recs {
		if rec.RowIssue != nil {
			issues = append(issues, issue{i, rec.RowIssue.Column, rec.RowIssue.Code})
		}
		for _, ci := range rec.CellIssues {
			issues = append(issues, issue{i, ci.Column, ci.Code})
		}
	}
	if !slices.Equal(issues, c.issues) {
		t.Errorf("issues %v, want %v", issues, c.issues)
	}
}

// TestCorpusSpectrum compares every csv-spectrum file with its expected JSON.
func TestCorpusSpectrum(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(corpusDir(t), "csv-spectrum")
	files, _ := filepath.Glob(filepath.Join(dir, "csvs", "*.csv"))
	if len(files) < 10 {
		t.Fatalf("found %d csv-spectrum files", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".csv")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "json", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want []map[string]string
			if err := json.Unmarshal(raw, &want); err != nil {
				// Upstream's location_coordinates.json is a single object that
				// disagrees with its CSV (MANIFEST.md: trust the CSV); that file is
				// checked against the CSV in TestCorpusConformance instead.
				if name != "location_coordinates" {
					t.Fatalf("expected output is not an array of objects: %v", err)
				}
				return
			}
			got := readAll(t, f, table.ReadOptions{})
			if got.err != nil {
				t.Fatal(got.err)
			}
			if len(got.recs) != len(want) {
				t.Fatalf("%d records, want %d", len(got.recs), len(want))
			}
			for i, w := range want {
				for j, h := range got.header {
					if got.recs[i].Cells[j] != w[h] {
						t.Errorf("record %d %s = %q, want %q", i, h, got.recs[i].Cells[j], w[h])
					}
				}
			}
		})
	}
}

// TestCorpusIsCovered fails when a corpus input has no case above.
func TestCorpusIsCovered(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	listed := map[string]bool{}
	for _, c := range corpusCases {
		listed[c.file] = true
	}
	var missing []string
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		expected := strings.HasPrefix(rel, "csv-spectrum/json/") || rel == "csvw/test009.json" || rel == "MANIFEST.md"
		if !expected && !listed[rel] {
			missing = append(missing, rel)
		}
		return nil
	})
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("corpus inputs without a conformance case: %v", missing)
	}
}
