// Package formatstest builds the files the readers' tests read: workbooks
// written by excelize or part by part, and files in a test's folder. The
// parent package's tests and the readers' own use it alike.
package formatstest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain/table"
)

// Records reads r to its end and returns its records, each kept: a
// record the reader will reuse is copied. err is the error that ended
// the reading before the end, nil at io.EOF.
func Records(r table.Reader) ([]table.Record, error) {
	var recs []table.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		if !rec.Owned {
			cells := make([]string, len(rec.Cells))
			for i, c := range rec.Cells {
				cells[i] = strings.Clone(c)
			}
			rec.Cells = cells
		}
		recs = append(recs, rec)
	}
}

// WriteFile writes data to a file of the test's temporary folder and
// returns its path.
func WriteFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Workbook writes the workbook fill makes of a new excelize file and
// returns its path.
func Workbook(t testing.TB, fill func(f *excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	fill(f)
	p := filepath.Join(t.TempDir(), "w.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// The namespaces of a worksheet: the main one with relationships, and
// markup compatibility.
const (
	NSMain = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	NSMC   = `xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" mc:Ignorable="x14ac"`
)

// ZipParts writes a zip of the given parts, in order.
func ZipParts(parts ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		w, _ := zw.Create(parts[i])
		_, _ = w.Write([]byte(parts[i+1]))
	}
	_ = zw.Close()
	return buf.Bytes()
}

// SheetWorkbookParts are the parts of a one-sheet workbook around its sheet
// XML (the <sheetData> element or the whole <worksheet>), its shared
// strings (the <si> items) and its cell formats (styles.xml's <numFmts>
// and <cellXfs> content).
func SheetWorkbookParts(sheet, sst, styles string, date1904 bool, extra ...string) []string {
	if !strings.Contains(sheet, "<worksheet") {
		sheet = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n<worksheet " + NSMain + " " + NSMC + ">" + sheet + "</worksheet>"
	}
	pr := ""
	if date1904 {
		pr = `<workbookPr date1904="1"/>`
	}
	parts := []string{
		"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
		"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook ` + NSMain + `>` + pr + `<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml", sheet,
		"xl/styles.xml", `<?xml version="1.0" encoding="UTF-8"?><styleSheet ` + NSMain + `>` + styles + `</styleSheet>`,
		"xl/sharedStrings.xml", fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?><sst %s count="%d">%s</sst>`, NSMain, strings.Count(sst, "<si"), sst),
	}
	return append(parts, extra...)
}

// RawWorkbook is a one-sheet workbook's zip (see SheetWorkbookParts).
func RawWorkbook(sheet, sst, styles string, date1904 bool) []byte {
	return ZipParts(SheetWorkbookParts(sheet, sst, styles, date1904)...)
}
