package export

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// unzipParts reads every part of a workbook, by name.
func unzipParts(t *testing.T, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc) // checks the CRC at the end
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		parts[f.Name] = string(data)
	}
	return parts
}

var sheetXMLCols = []Column{{Name: "id", Type: schema.Integer, Required: true}, {Name: "name", Type: schema.String},
	{Name: "born", Type: schema.Date}, {Name: "seen", Type: schema.DateTime}, {Name: "ok", Type: schema.Boolean},
	{Name: "price", Type: schema.Number}, {Name: "mixed", Type: schema.String}}

// sheetXMLRows are rows with every kind of cell and text the writers
// treat apart.
func sheetXMLRows(n int) string {
	texts := []string{`""`, `"plain"`, `" lead"`, `"trail "`, `"\ttab"`, `"a\nb"`, `"cr\r"`, `"<&>'\""`, `"_x0041_ and _x005F_x0041_"`,
		`"_x005F_"`, `"snake_case_x"`, `"é ü 😀"`, `"\u0001ctl"`, `"\ufffe"`, `"=1+1"`, `"ok_xZZZZ_"`, `"\u2028"`}
	dates := []string{`"2024-01-31"`, `"1899-12-31"`, `"1900-01-01"`, `"1900-02-28"`, `"1900-03-01"`, `"9999-12-31"`, `"not a date"`, `null`, `12`}
	seen := []string{`"2024-02-01T10:30:00+02:00"`, `"2024-02-01T00:00:00.5Z"`, `"1899-01-01T00:00:00Z"`, `"2024-02-01T00:00:00.123456789-05:30"`, `"later"`, `null`}
	nums := []string{`1.25`, `-3`, `1e5`, `12345678901234567890`, `12345678.123456789012`, `0.1`, `-0`, `1E400`, `null`, `"7"`, `true`}
	mixed := []string{`"text"`, `12.5`, `true`, `null`, `{"a":1}`, `[1,"x"]`}
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":%d,"name":%s,"born":%s,"seen":%s,"ok":%s,"price":%s,"mixed":%s}`+"\n", i,
			texts[r.IntN(len(texts))], dates[r.IntN(len(dates))], seen[r.IntN(len(seen))],
			[]string{"true", "false", "null", `"yes"`}[r.IntN(4)], nums[r.IntN(len(nums))], mixed[r.IntN(len(mixed))])
	}
	return b.String()
}

// TestWriteRowsXLSX_asTheStreamWriter: the workbook is the one excelize's
// stream writer wrote, part for part and byte for byte once inflated,
// whatever the cells, over several sheets, and with no rows at all.
func TestWriteRowsXLSX_asTheStreamWriter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rows string
		opt  XLSXOptions
	}{
		{"every kind of cell", sheetXMLRows(3000), XLSXOptions{}},
		{"several sheets", sheetXMLRows(2500), XLSXOptions{SheetRows: 1000}},
		{"a sheet a row", sheetXMLRows(3), XLSXOptions{SheetRows: 2}},
		{"no rows", "", XLSXOptions{}},
		{"the contacts", string(contactsRows(1200)), XLSXOptions{}},
	} {
		cols := sheetXMLCols
		if tc.name == "the contacts" {
			cols = contactCols
		}
		var got, want bytes.Buffer
		if err := WriteRowsXLSX(&got, strings.NewReader(tc.rows), cols, tc.opt); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := referenceRowsXLSX(&want, strings.NewReader(tc.rows), cols, tc.opt); err != nil {
			t.Fatalf("%s: reference: %v", tc.name, err)
		}
		g, w := unzipParts(t, got.Bytes()), unzipParts(t, want.Bytes())
		if len(g) != len(w) {
			t.Errorf("%s: %d parts, want %d", tc.name, len(g), len(w))
		}
		for name, wp := range w {
			if gp, ok := g[name]; !ok || gp != wp {
				t.Errorf("%s: part %s differs (%d bytes, want %d):\n got %.600s\nwant %.600s", tc.name, name, len(gp), len(wp), tail(gp, wp), tail(wp, gp))
			}
		}
	}
}

// tail is a from where it first differs from b.
func tail(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(i-200, 0):]
}

// TestCRC32Combine: the CRC of two texts joined, from theirs.
func TestCRC32Combine(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 7, 64, 1000, 65537} {
		a, b := make([]byte, r.IntN(100)), make([]byte, n)
		for i := range a {
			a[i] = byte(r.IntN(256))
		}
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		want := crc32.ChecksumIEEE(append(bytes.Clone(a), b...))
		if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(n)); got != want {
			t.Errorf("%d bytes: %08x, want %08x", n, got, want)
		}
	}
}
