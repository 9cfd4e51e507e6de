package xlsx

import (
	"testing"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
)

// FuzzXLSXSheet reads fuzzed sheet XML (with shared strings and date
// styles around it) with the streaming reader and with excelize's: when
// the streaming reader accepts the sheet, it must hand out what excelize
// did. It may refuse what excelize passed over (excelize stops silently at
// a syntax error, losing the rows after it).
func FuzzXLSXSheet(f *testing.F) {
	for _, sheet := range xlsxKinds {
		f.Add([]byte(sheet))
	}
	f.Add([]byte(`<sheetData><row r="2"><c r="B2" t="s"><v>3</v></c></row></sheetData>`))
	f.Fuzz(func(t *testing.T, sheet []byte) {
		if !utf8.Valid(sheet) {
			return
		}
		p := formatstest.WriteFile(t, "f.xlsx", formatstest.RawWorkbook(string(sheet), xlsxKindsStrings, xlsxKindsStyles, false))
		compareReaders(t, p, 1, false)
	})
}
