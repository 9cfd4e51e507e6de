package formats

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

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
	parts := sheetWorkbookParts(sheet, "", "", false)
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
	whole := `<?xml version="1.0" encoding="UTF-8"?><worksheet ` + nsMain + `>` + good + `</worksheet>`
	crc := storedWorkbook(good)
	at := bytes.Index(crc, []byte(`<v>150</v>`))
	crc[at+3] = '7' // 150 -> 750: the stored bytes no longer match the CRC
	cases := []struct {
		name string
		file []byte
		says string
	}{
		{"truncated sheet", rawWorkbook(whole[:len(whole)/2], "", "", false), "truncated"},
		{"cut inside a tag", rawWorkbook(whole[:strings.Index(whole, `<row r="120"`)+7], "", "", false), "inside a tag"},
		{"cut after the data", rawWorkbook(whole[:len(whole)-5], "", "", false), "truncated"},
		{"syntax error", rawWorkbook(strings.Replace(good, `<v>100</v>`, `<v>100</c>`, 1), "", "", false), "XML syntax error"},
		{"unknown entity", rawWorkbook(strings.Replace(good, `<t>n99</t>`, `<t>n&nbsp;99</t>`, 1), "", "", false), "unknown entity"},
		{"invalid UTF-8", rawWorkbook(strings.Replace(good, `<t>n99</t>`, "<t>n\xff99</t>", 1), "", "", false), "UTF-8"},
		{"control character", rawWorkbook(strings.Replace(good, `<t>n99</t>`, "<t>n\x0199</t>", 1), "", "", false), "illegal character"},
		{"CRC mismatch", crc, "checksum"},
		{"under-declared dimension", rawWorkbook(integritySheet("A1:B101"), "", "", false), "outside the size the sheet declares"},
		{"rows out of order", rawWorkbook(strings.Replace(good, `<row r="150"`, `<row r="10"`, 1), "", "", false), "out of order"},
		{"missing shared string", rawWorkbook(strings.Replace(good, `<c r="A99"><v>99</v></c>`, `<c r="A99" t="s"><v>7</v></c>`, 1), "<si><t>x</t></si>", "", false), "shared string 7 does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := writeFile(t, "damaged.xlsx", c.file)
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
	if got := readAll(t, writeFile(t, "good.xlsx", storedWorkbook(good)), table.ReadOptions{}); got.err != nil || len(got.recs) != 200 {
		t.Fatalf("the undamaged workbook: %v, %d records", got.err, len(got.recs))
	}
	// A dimension of one cell is written by tools that do not know the size.
	if got := readAll(t, writeFile(t, "a1.xlsx", rawWorkbook(integritySheet("A1"), "", "", false)), table.ReadOptions{}); got.err != nil || len(got.recs) != 200 {
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

// TestXLSXEncrypted: a password-protected workbook is an OLE container
// with an EncryptionInfo stream; it fails as encrypted, at sniffing and
// at opening, not as "an .xls or another OLE document".
func TestXLSXEncrypted(t *testing.T) {
	t.Parallel()
	f := excelize.NewFile()
	_ = f.SetSheetRow("Sheet1", "A1", &[]any{"a", "b"})
	p := filepath.Join(t.TempDir(), "locked.xlsx")
	if err := f.SaveAs(p, excelize.Options{Password: "secret"}); err != nil {
		t.Fatal(err)
	}
	_, err := NewOpener().Open(context.Background(), p, "locked.xlsx", table.ReadOptions{})
	if !errors.Is(err, table.ErrEncrypted) || !strings.Contains(err.Error(), "password-protected") {
		t.Fatalf("open: %v", err)
	}
	// The directory entry past the sniffed head is found when opening.
	far := append(append(append([]byte{}, oleMagic...), make([]byte, 2*SniffSize)...), oleEncryptionInfo...)
	if _, err := NewOpener().Sniff(far[:SniffSize], "x.xlsx"); errors.Is(err, table.ErrEncrypted) || !errors.Is(err, table.ErrUnsupportedFormat) {
		t.Fatalf("sniff of a head without the directory: %v", err)
	}
	if _, err := NewOpener().Open(context.Background(), writeFile(t, "far.xlsx", far), "far.xlsx", table.ReadOptions{}); !errors.Is(err, table.ErrEncrypted) {
		t.Fatalf("open with the directory past the head: %v", err)
	}
	// An unencrypted OLE document is still an .xls.
	xls := append(append([]byte{}, oleMagic...), utf16le("Workbook")...)
	if _, err := NewOpener().Open(context.Background(), writeFile(t, "old.xls", xls), "old.xls", table.ReadOptions{}); errors.Is(err, table.ErrEncrypted) || !strings.Contains(err.Error(), ".xls") {
		t.Fatalf("plain OLE: %v", err)
	}
}
