package formats

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain/table"
)

// readFuzz reads a fuzzed file to its end: it must neither panic nor hang,
// and errors must be of the two kinds callers handle.
func readFuzz(t *testing.T, data []byte, name string) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	limits := table.Limits{MaxColumns: 200, MaxCellBytes: 64 << 10, MaxUnzipBytes: 64 << 20}
	r, err := NewOpener().Open(context.Background(), p, name, table.ReadOptions{Limits: limits})
	if err != nil {
		return
	}
	defer r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			return
		}
		if len(rec.Cells) > limits.MaxColumns {
			t.Fatalf("record with %d cells passed a %d-column limit", len(rec.Cells), limits.MaxColumns)
		}
		if n%1000 == 0 && time.Now().After(deadline) {
			t.Fatal("reading did not finish in 5 s")
		}
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a;b\r\n\"x;y\";2\r\n", "\"unterminated\n", "sep=|\na|b\n", "a\tb\n\"q\"\"\"\t\n", "\xEF\xBB\xBFid\n\x00\n", "\xFF\xFEa\x00,\x00b\x00\n\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readFuzz(t, data, "f.csv")
		sameWithDetection(t, data, "f.csv")
	})
}

// sameWithDetection reads a file, then reads it again with its Detection
// as options: the header and the records must be the same.
func sameWithDetection(t *testing.T, data []byte, name string) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	limits := table.Limits{MaxColumns: 200, MaxCellBytes: 64 << 10}
	read := func(opts table.ReadOptions) (string, table.Detection, bool) {
		opts.Limits = limits
		r, err := NewOpener().Open(context.Background(), p, name, opts)
		if err != nil {
			return "", table.Detection{}, false
		}
		defer r.Close()
		d, ok := r.(table.Describer)
		if !ok {
			return "", table.Detection{}, false
		}
		var out strings.Builder
		fmt.Fprintf(&out, "%q\n", r.Header())
		for n := 0; n < 10_000; n++ {
			rec, err := r.Next()
			if err != nil {
				fmt.Fprintf(&out, "%v", err == io.EOF)
				break
			}
			fmt.Fprintf(&out, "%d %q %v\n", rec.Number, rec.Cells, rec.RowIssue != nil)
		}
		return out.String(), d.Detection(), true
	}
	first, det, ok := read(table.ReadOptions{})
	if !ok {
		return
	}
	again, _, ok := read(optionsOf(det))
	if !ok || again != first {
		t.Fatalf("with the Detection %+v as options:\n%s\nwant\n%s", det, again, first)
	}
}

func FuzzJSONL(f *testing.F) {
	for _, s := range []string{`{"a":1}` + "\n" + `{"b":[1,{"c":null}]}`, `{"a":"\u00e9\ud83d"}`, "{\n", `{"a":1}` + "\nnot json\n", `{"":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkObjectScanner(t, data)
		readFuzz(t, data, "f.jsonl")
	})
}

func FuzzXLSX(f *testing.F) {
	wb := excelize.NewFile()
	_ = wb.SetSheetRow("Sheet1", "A1", &[]any{"a", "b"})
	_ = wb.SetSheetRow("Sheet1", "A2", &[]any{1.5, "x"})
	var buf bytes.Buffer
	if err := wb.Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x03\x04xl/workbook.xml"))
	f.Fuzz(func(t *testing.T, data []byte) { readFuzz(t, data, "f.xlsx") })
}

// FuzzScannerFastPath reads the same text with and without the scanner's
// fast path, through buffers of several sizes (so records are cut at every
// place), and wants the same records, warnings, line numbers and errors.
func FuzzScannerFastPath(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,\"b\"\"c\",d\r\n\"x\ny\",2\r\r\n3\r4\n", "\"unterminated\n1,2", "12\" pipe,\"say \"\"hi\"\"\"\n",
		"\"x\"y\"\",z\n\"p\" \n,,\n", "a;b\n\"\"\"\";\"\"\n", "caf\xe9,\"\xe4\",\xb8\n"} {
		f.Add([]byte(s), byte(','), uint8(0))
	}
	f.Add([]byte("a, 'b, c',d\n1,  'x''y'  ,2\n"), byte(','), uint8(6))
	f.Add([]byte("a, \"b, c\",d\n1, \"x\" ,2\n"), byte(','), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, delim byte, size uint8) {
		if delim >= 0x80 {
			delim = ','
		}
		limits := table.Limits{MaxColumns: 8, MaxCellBytes: 40}
		read := func(fast bool) string {
			s := newScanner(bytes.NewReader(data), delim, limits)
			s.r = bufio.NewReaderSize(bytes.NewReader(data), 16+int(size))
			s.fixUTF8 = size%2 == 0
			if size&2 != 0 { // the other bits of size pick the quote and blanks before it
				s.setQuoting('\'', 0)
			}
			s.blankQuote = size&4 != 0
			s.fastOK = s.fastOK && fast
			var out strings.Builder
			for range 10_000 {
				rec, err := s.next()
				fmt.Fprintf(&out, "%q %v %d %d %d %v\n", rec, s.issues, s.line, s.lines, s.quotedCells, err)
				if err != nil {
					break
				}
				from := uintptr(unsafe.Pointer(unsafe.StringData(s.text)))
				for _, c := range rec {
					if at := uintptr(unsafe.Pointer(unsafe.StringData(c))); len(c) > 0 && (at < from || at+uintptr(len(c)) > from+uintptr(len(s.text))) {
						t.Fatalf("cell %q is not in the record's text %q", c, s.text)
					}
				}
			}
			return out.String()
		}
		if slow, fast := read(false), read(true); slow != fast {
			t.Fatalf("general path:\n%s\nfast path:\n%s", slow, fast)
		}
	})
}

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
		p := writeFile(t, "f.xlsx", rawWorkbook(string(sheet), xlsxKindsStrings, xlsxKindsStyles, false))
		compareReaders(t, p, 1, false)
	})
}
