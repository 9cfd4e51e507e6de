package export_test

import (
	"bytes"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/schema"
)

var contactCols = []export.Column{
	{Name: "id", Type: schema.Integer, Required: true},
	{Name: "big", Type: schema.Integer},
	{Name: "price", Type: schema.Number},
	{Name: "exact", Type: schema.Number},
	{Name: "born", Type: schema.Date},
	{Name: "seen", Type: schema.DateTime},
	{Name: "active", Type: schema.Boolean},
	{Name: "name", Type: schema.String},
}

// contactRows are rows as the engine writes them: keys in schema order,
// numbers as their digits, a datetime with an offset, a null.
const contactRows = `{"id":1,"big":12345678901234567890,"price":1.25,"exact":12345678.123456789012,"born":"2024-01-31","seen":"2024-02-01T10:30:00+02:00","active":true,"name":"Ann"}
{"id":2,"big":7,"price":-3,"exact":0.5,"born":"1999-12-31","seen":"2024-02-01T00:00:00.5Z","active":false,"name":"=1+1"}
{"id":3,"big":null,"price":null,"exact":null,"born":null,"seen":null,"active":null,"name":null}
`

func writeXLSX(t *testing.T, rows string, opt export.XLSXOptions) *excelize.File {
	t.Helper()
	var out bytes.Buffer
	if err := export.WriteRowsXLSX(&out, strings.NewReader(rows), contactCols, opt); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func TestWriteRowsXLSX_roundTrip(t *testing.T) {
	t.Parallel()
	f := writeXLSX(t, contactRows, export.XLSXOptions{})
	if got := f.GetSheetList(); len(got) != 1 || got[0] != "Rows" {
		t.Fatalf("sheets %v", got)
	}
	rows, err := f.GetRows("Rows")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"id", "big", "price", "exact", "born", "seen", "active", "name"},
		{"1", "12345678901234567890", "1.25", "12345678.123456789012", "2024-01-31", "2024-02-01 08:30:00", "TRUE", "Ann"},
		{"2", "7", "-3", "0.5", "1999-12-31", "2024-02-01 00:00:00", "FALSE", "=1+1"},
		{"3"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %q", rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i+1, rows[i], want[i])
		}
	}
	// Types: numbers a double holds are numbers; the rest keep their digits as text.
	types := map[string]excelize.CellType{"A2": excelize.CellTypeUnset, "B2": excelize.CellTypeInlineString,
		"C2": excelize.CellTypeUnset, "D2": excelize.CellTypeInlineString, "G2": excelize.CellTypeBool, "H3": excelize.CellTypeInlineString}
	for cell, want := range types {
		got, err := f.GetCellType("Rows", cell)
		if err != nil || got != want {
			t.Errorf("%s: type %v (%v), want %v", cell, got, err, want)
		}
	}
	// Dates are date cells: a serial number under a date format.
	raw, err := f.GetCellValue("Rows", "E2", excelize.Options{RawCellValue: true})
	if err != nil || raw != "45322" {
		t.Errorf("E2 raw %q (%v), want the serial 45322", raw, err)
	}
	raw, _ = f.GetCellValue("Rows", "F3", excelize.Options{RawCellValue: true})
	if v, err := strconv.ParseFloat(raw, 64); err != nil || v < 45323.0000057 || v > 45323.0000059 {
		t.Errorf("F3 raw %q: want 45323 and half a second", raw)
	}
	assertHeaderAndFilter(t, f, "Rows", "A1:H4")
}

func assertHeaderAndFilter(t *testing.T, f *excelize.File, sheet, ref string) {
	t.Helper()
	styleID, err := f.GetCellStyle(sheet, "A1")
	if err != nil {
		t.Fatal(err)
	}
	style, err := f.GetStyle(styleID)
	if err != nil || style.Font == nil || !style.Font.Bold {
		t.Errorf("%s header style %+v (%v): not bold", sheet, style, err)
	}
	panes, err := f.GetPanes(sheet)
	if err != nil || !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("%s panes %+v (%v): header not frozen", sheet, panes, err)
	}
	tables, err := f.GetTables(sheet)
	if err != nil || len(tables) != 1 || tables[0].Range != ref {
		t.Errorf("%s tables %+v (%v), want one autofilter over %s", sheet, tables, err, ref)
	}
	width, err := f.GetColWidth(sheet, "A")
	if err != nil || width < 8 || width > 60 {
		t.Errorf("%s column A width %v (%v)", sheet, width, err)
	}
}

func TestWriteRowsXLSX_continuesOnNextSheet(t *testing.T) {
	t.Parallel()
	var rows strings.Builder
	for i := 1; i <= 5; i++ {
		rows.WriteString(`{"id":` + strconv.Itoa(i) + `}` + "\n")
	}
	f := writeXLSX(t, rows.String(), export.XLSXOptions{SheetRows: 3})
	if got := strings.Join(f.GetSheetList(), ","); got != "Rows,Rows 2,Rows 3" {
		t.Fatalf("sheets %s", got)
	}
	ids := ""
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet)
		if err != nil || rows[0][0] != "id" {
			t.Fatalf("%s: %q %v", sheet, rows, err)
		}
		for _, r := range rows[1:] {
			ids += r[0]
		}
	}
	if ids != "12345" {
		t.Fatalf("ids across sheets %q", ids)
	}
	assertHeaderAndFilter(t, f, "Rows 2", "A1:H3")
}

func TestWriteRowsXLSX_cellTooLongBeforeAnyByte(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", export.MaxCellChars+1)
	rows := `{"id":1,"name":"ok"}` + "\n" + `{"id":2,"name":"` + long + `"}` + "\n"
	var out bytes.Buffer
	err := export.WriteRowsXLSX(&out, strings.NewReader(rows), contactCols, export.XLSXOptions{})
	if domain.CodeOf(err) != domain.CodeCellTooLong || !strings.Contains(err.Error(), `Row 2's "name" holds 32768 characters`) {
		t.Fatalf("err %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("%d bytes written before the error", out.Len())
	}
	// At the limit, the value is written whole.
	rows = `{"id":1,"name":"` + strings.Repeat("é", export.MaxCellChars) + `"}` + "\n"
	f := writeXLSX(t, rows, export.XLSXOptions{})
	if v, _ := f.GetCellValue("Rows", "H2"); len([]rune(v)) != export.MaxCellChars {
		t.Fatalf("a %d-character value", len([]rune(v)))
	}
}

func writeParquet(t *testing.T, rows string, cols []export.Column) *parquet.File {
	t.Helper()
	plans, err := export.PlanParquet(strings.NewReader(rows), cols)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := export.WriteRowsParquet(&out, strings.NewReader(rows), cols, plans, export.ParquetOptions{RowGroupRows: 2}); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestWriteRowsParquet_roundTrip(t *testing.T) {
	t.Parallel()
	f := writeParquet(t, contactRows, contactCols)
	if f.NumRows() != 3 || len(f.RowGroups()) != 2 {
		t.Fatalf("%d rows in %d row groups", f.NumRows(), len(f.RowGroups()))
	}
	want := []string{
		"id INT(64,true) required",
		"big DECIMAL(38,0) optional",
		"price DOUBLE optional",
		"exact DECIMAL(38,12) optional",
		"born DATE optional",
		"seen TIMESTAMP(isAdjustedToUTC=true,unit=MICROS) optional",
		"active BOOLEAN optional",
		"name STRING optional",
	}
	for i, field := range f.Schema().Fields() {
		got := field.Name() + " " + typeName(field)
		if field.Optional() {
			got += " optional"
		} else {
			got += " required"
		}
		if i >= len(want) || got != want[i] {
			t.Errorf("column %d: %s, want %s", i, got, want[min(i, len(want)-1)])
		}
	}
	rows := make([]parquet.Row, 3)
	r := parquet.NewReader(f)
	n, _ := r.ReadRows(rows)
	if n != 3 {
		t.Fatalf("read %d rows", n)
	}
	first := rows[0]
	if first[0].Int64() != 1 || first[2].Double() != 1.25 || first[4].Int32() != 19753 || first[5].Int64() != 1706776200000000 ||
		!first[6].Boolean() || string(first[7].ByteArray()) != "Ann" {
		t.Errorf("first row %v", first)
	}
	if got := decimalText(first[3].ByteArray(), 12); got != "12345678.123456789012" {
		t.Errorf("exact %s", got)
	}
	if got := decimalText(first[1].ByteArray(), 0); got != "12345678901234567890" {
		t.Errorf("big %s", got)
	}
	for i, v := range rows[2][1:] {
		if !v.IsNull() {
			t.Errorf("row 3 column %d: %v, want null", i+1, v)
		}
	}
	if got := decimalText(rows[1][3].ByteArray(), 12); got != "0.500000000000" {
		t.Errorf("exact of row 2: %s", got)
	}
}

func TestWriteRowsParquet_textPastDecimal(t *testing.T) {
	t.Parallel()
	rows := `{"id":1,"big":` + strings.Repeat("9", 40) + `}` + "\n"
	f := writeParquet(t, rows, contactCols[:2])
	if got := typeName(f.Schema().Fields()[1]); got != "STRING" {
		t.Fatalf("a 40-digit integer column is %s, want STRING", got)
	}
}

func typeName(field parquet.Field) string {
	if lt := field.Type().LogicalType(); lt != nil && lt.Value != nil {
		return lt.String()
	}
	return field.Type().Kind().String()
}

// decimalText reads a 16-byte two's complement unscaled value back.
func decimalText(b []byte, scale int) string {
	v := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	sign := ""
	if v.Sign() < 0 {
		sign = "-"
		v.Neg(v)
	}
	digits := v.String()
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	if scale == 0 {
		return sign + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// sampleDir, when set (go test ./adapters/export/ -run Sample -args
// -sample-dir DIR), is where the sample files are also written, for
// .ci/duckdb/run to read them with another Parquet reader.
var sampleDir = flag.String("sample-dir", "", "also write rows.parquet and rows.xlsx of the contacts sample here")

// TestWriteRows_sampleFiles writes the contacts sample as both files.
func TestWriteRows_sampleFiles(t *testing.T) {
	dir := *sampleDir
	if dir == "" {
		dir = t.TempDir()
	}
	plans, err := export.PlanParquet(strings.NewReader(contactRows), contactCols)
	if err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(*os.File) error{
		"rows.parquet": func(f *os.File) error {
			return export.WriteRowsParquet(f, strings.NewReader(contactRows), contactCols, plans, export.ParquetOptions{})
		},
		"rows.xlsx": func(f *os.File) error {
			return export.WriteRowsXLSX(f, strings.NewReader(contactRows), contactCols, export.XLSXOptions{})
		},
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		if info, err := f.Stat(); err != nil || info.Size() < 100 {
			t.Fatalf("%s: %v, %v", name, info, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
