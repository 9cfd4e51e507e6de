package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// integritySheet is a sheet of 200 rows under a header.
func integritySheet(dimension string) string {
	var b strings.Builder
	if dimension != "" {
		fmt.Fprintf(&b, `<dimension ref="%s"/>`, dimension)
	}
	b.WriteString(`<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>name</t></is></c></row>`)
	for i := 2; i <= 201; i++ {
		fmt.Fprintf(&b, `<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>n%d</t></is></c></row>`, i, i, i, i, i)
	}
	b.WriteString(`</sheetData>`)
	return b.String()
}

// storedWorkbook writes the parts with the sheet stored (not deflated), so
// that a test can damage its bytes in place.
func storedWorkbook(sheet string) []byte {
	parts := formatstest.SheetWorkbookParts(sheet, "", "", false)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		method := zip.Deflate
		if strings.HasPrefix(parts[i], "xl/worksheets/") {
			method = zip.Store
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: parts[i], Method: method})
		_, _ = w.Write([]byte(parts[i+1]))
	}
	_ = zw.Close()
	return buf.Bytes()
}

// TestXLSXDamageIsUnreadable: a damaged sheet fails the file; no reading
// ends early with the rows after the damage silently missing (excelize's
// reader, kept in the tests, "succeeds" with fewer rows on each).
func TestXLSXDamageIsUnreadable(t *testing.T) {
	t.Parallel()
	good := integritySheet("A1:B201")
	whole := `<?xml version="1.0" encoding="UTF-8"?><worksheet ` + formatstest.NSMain + `>` + good + `</worksheet>`
	crc := storedWorkbook(good)
	at := bytes.Index(crc, []byte(`<v>150</v>`))
	crc[at+3] = '7' // 150 -> 750: the stored bytes no longer match the CRC
	cases := []struct {
		name string
		file []byte
		says string
	}{
		{"truncated sheet", formatstest.RawWorkbook(whole[:len(whole)/2], "", "", false), "truncated"},
		{"cut inside a tag", formatstest.RawWorkbook(whole[:strings.Index(whole, `<row r="120"`)+7], "", "", false), "inside a tag"},
		{"cut after the data", formatstest.RawWorkbook(whole[:len(whole)-5], "", "", false), "truncated"},
		{"syntax error", formatstest.RawWorkbook(strings.Replace(good, `<v>100</v>`, `<v>100</c>`, 1), "", "", false), "XML syntax error"},
		{"unknown entity", formatstest.RawWorkbook(strings.Replace(good, `<t>n99</t>`, `<t>n&nbsp;99</t>`, 1), "", "", false), "unknown entity"},
		{"invalid UTF-8", formatstest.RawWorkbook(strings.Replace(good, `<t>n99</t>`, "<t>n\xff99</t>", 1), "", "", false), "UTF-8"},
		{"control character", formatstest.RawWorkbook(strings.Replace(good, `<t>n99</t>`, "<t>n\x0199</t>", 1), "", "", false), "illegal character"},
		{"control character in an attribute", formatstest.RawWorkbook(strings.Replace(good, `<row r="150"`, "<row spans=\"1\x01\" r=\"150\"", 1), "", "", false), "illegal character"},
		{"invalid UTF-8 in an attribute", formatstest.RawWorkbook(strings.Replace(good, `<row r="150"`, "<row spans=\"1\xff\" r=\"150\"", 1), "", "", false), "UTF-8"},
		{"CRC mismatch", crc, "checksum"},
		{"under-declared dimension", formatstest.RawWorkbook(integritySheet("A1:B101"), "", "", false), "outside the size the sheet declares"},
		{"rows out of order", formatstest.RawWorkbook(strings.Replace(good, `<row r="150"`, `<row r="10"`, 1), "", "", false), "out of order"},
		{"missing shared string", formatstest.RawWorkbook(strings.Replace(good, `<c r="A99"><v>99</v></c>`, `<c r="A99" t="s"><v>7</v></c>`, 1), "<si><t>x</t></si>", "", false), "shared string 7 does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := formatstest.WriteFile(t, "damaged.xlsx", c.file)
			got := readAll(t, p, table.ReadOptions{})
			if !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), c.says) {
				t.Fatalf("err = %v after %d records; want unreadable saying %q", got.err, len(got.recs), c.says)
			}
			if old := legacyRead(p); old.err == nil && len(old.recs) == 200 {
				t.Logf("excelize's reader read all 200 rows")
			} else if old.err == nil {
				t.Logf("excelize's reader 'succeeded' with %d of 200 rows", len(old.recs))
			}
		})
	}
	if got := readAll(t, formatstest.WriteFile(t, "good.xlsx", storedWorkbook(good)), table.ReadOptions{}); got.err != nil || len(got.recs) != 200 {
		t.Fatalf("the undamaged workbook: %v, %d records", got.err, len(got.recs))
	}
	// A dimension of one cell is written by tools that do not know the size.
	if got := readAll(t, formatstest.WriteFile(t, "a1.xlsx", formatstest.RawWorkbook(integritySheet("A1"), "", "", false)), table.ReadOptions{}); got.err != nil || len(got.recs) != 200 {
		t.Fatalf("dimension A1: %v, %d records", got.err, len(got.recs))
	}
}

func legacyRead(path string) parsed {
	r, err := openLegacyXLSX(path, table.ReadOptions{})
	if err != nil {
		return parsed{err: err}
	}
	defer r.Close()
	p := parsed{header: r.Header()}
	for {
		rec, err := r.Next()
		if err != nil {
			if err.Error() != "EOF" {
				p.err = err
			}
			return p
		}
		p.recs = append(p.recs, rec)
	}
}
