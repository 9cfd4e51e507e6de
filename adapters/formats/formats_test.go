package formats

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

func TestSniff(t *testing.T) {
	t.Parallel()
	o := NewOpener()
	cases := []struct {
		name, file string
		data       []byte
		want       table.Format
		err        error
	}{
		{"csv", "a.csv", []byte("a,b\n1,2\n"), table.CSV, nil},
		{"tsv by content", "a.txt", []byte("a\tb\tc\n1\t2\t3\n"), table.TSV, nil},
		{"semicolons stay csv", "a.csv", []byte("a;b\n1;2\n"), table.CSV, nil},
		{"jsonl", "a.txt", []byte(`{"a":1}` + "\n" + `{"a":2}` + "\n"), table.JSONL, nil},
		{"jsonl named csv", "a.csv", []byte(`{"a":1}` + "\n"), table.JSONL, nil},
		{"json array", "a.json", []byte(`[{"a":1}]`), "", table.ErrUnsupportedFormat},
		{"xlsx by magic", "a.bin", append([]byte("PK\x03\x04"), []byte("....[Content_Types].xml....xl/workbook.xml")...), table.XLSX, nil},
		{"plain zip", "a.xlsx", append([]byte("PK\x03\x04"), []byte("....readme.txt")...), "", table.ErrUnsupportedFormat},
		{"png", "a.csv", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06\x00\x00\x00"), "", table.ErrUnsupportedFormat},
		{"pdf-ish binary", "a.csv", bytes.Repeat([]byte{0x00, 0x01, 0x02, 0x03, 0x1b}, 200), "", table.ErrUnsupportedFormat},
		{"empty", "a.csv", nil, "", table.ErrUnsupportedFormat},
		{"old xls", "a.xls", []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00"), "", table.ErrUnsupportedFormat},
		{"pdf", "a.csv", []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), "", table.ErrUnsupportedFormat},
		{"gzip", "a.csv.gz", []byte("\x1F\x8B\x08\x00\x00\x00\x00\x00"), "", table.ErrUnsupportedFormat},
		{"utf-16 text", "a.csv", []byte("\xFF\xFEa\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00"), table.CSV, nil},
	}
	for _, c := range cases {
		got, err := o.Sniff(c.data, c.file)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("%s: %s, %v; want %s, %v", c.name, got, err, c.want, c.err)
		}
	}
}

func TestDialects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data string
		opts       table.ReadOptions
		want       [][]string
	}{
		{"space before quote", "id, name, city\n1, \"Smith, John\", Paris\n2, \"Doe, Ann\", Rome\n", table.ReadOptions{},
			[][]string{{"1", "Smith, John", " Paris"}, {"2", "Doe, Ann", " Rome"}}},
		{"single quotes", "id,name\n1,'Smith, J'\n2,'O''Hara, K'\n", table.ReadOptions{}, [][]string{{"1", "Smith, J"}, {"2", "O'Hara, K"}}},
		{"backslash escapes", "id,q\n1,\"a \\\"b\\\" c\"\n2,\"x\\\\y\"\n", table.ReadOptions{}, [][]string{{"1", `a "b" c`}, {"2", `x\y`}}},
		{"quote option off", "id,q\n1,\"a\n", table.ReadOptions{Quote: table.QuoteNone}, [][]string{{"1", `"a`}}},
		{"quote option single", "id,q\n1,'a,b'\n", table.ReadOptions{Quote: "'"}, [][]string{{"1", "a,b"}}},
		{"escape option", "id,q\n1,\"a\\\"b\"\n", table.ReadOptions{Escape: `\`}, [][]string{{"1", `a"b`}}},
		{"escape option none", "id,q\n1,\"a\\\"\"b\"\n", table.ReadOptions{Escape: table.EscapeNone}, [][]string{{"1", `a\"b`}}},
		{"colon", "user:uid\nroot:0\nbin:1\n", table.ReadOptions{}, [][]string{{"root", "0"}, {"bin", "1"}}},
	}
	for _, c := range cases {
		got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(c.data)), c.opts)
		if got.err != nil || len(got.recs) != len(c.want) {
			t.Errorf("%s: %v %v", c.name, got.recs, got.err)
			continue
		}
		for i, w := range c.want {
			if !slices.Equal(got.recs[i].Cells, w) {
				t.Errorf("%s: record %d %q, want %q", c.name, i, got.recs[i].Cells, w)
			}
		}
	}
}

func TestEncodings(t *testing.T) {
	t.Parallel()
	text := "name,city\nJosé,Zürich\n"
	utf16le, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(text))
	utf16beNoBOM, _ := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder().Bytes([]byte(text))
	cp1252, _ := charmap.Windows1252.NewEncoder().Bytes([]byte("name,price\nCafé,5 €\n"))
	cases := []struct {
		name string
		data []byte
		opts table.ReadOptions
		want string
	}{
		{"utf-8", []byte(text), table.ReadOptions{}, "José|Zürich"},
		{"utf-8 with BOM", append([]byte("\xEF\xBB\xBF"), text...), table.ReadOptions{}, "José|Zürich"},
		{"utf-16le with BOM", utf16le, table.ReadOptions{}, "José|Zürich"},
		{"utf-16be without BOM", utf16beNoBOM, table.ReadOptions{}, "José|Zürich"},
		{"windows-1252 fallback", cp1252, table.ReadOptions{}, "Café|5 €"},
		{"latin-1 forced", []byte("name,city\nJos\xe9,Z\xfcrich\n"), table.ReadOptions{Encoding: "latin-1"}, "José|Zürich"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readAll(t, formatstest.WriteFile(t, "f.csv", c.data), c.opts)
			if got.err != nil || len(got.recs) != 1 || strings.Join(got.recs[0].Cells, "|") != c.want || got.header[0] != "name" {
				t.Fatalf("%q %v %v", got.header, got.recs, got.err)
			}
		})
	}
}

func TestLineEndingsAndQuotes(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"lf":    "a,b\n1,\"x\ny\"\n2,z\n",
		"crlf":  "a,b\r\n1,\"x\ny\"\r\n2,z\r\n",
		"cr":    "a,b\r1,\"x\ny\"\r2,z",
		"mixed": "a,b\r\n1,\"x\ny\"\n2,z\r",
	} {
		got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(data)), table.ReadOptions{})
		if got.err != nil || len(got.recs) != 2 || got.recs[0].Cells[1] != "x\ny" || got.recs[1].Cells[1] != "z" {
			t.Errorf("%s: %v %v", name, got.recs, got.err)
		}
	}
}

func TestHeaderDetection(t *testing.T) {
	t.Parallel()
	data := "Quarterly report\nGenerated 2024-01-31\n\nid,name,amount\n1,a,2\n2,b,3\n"
	got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(data)), table.ReadOptions{})
	if strings.Join(got.header, ",") != "id,name,amount" || len(got.recs) != 2 || got.recs[0].Number != 1 {
		t.Fatalf("%q %v", got.header, got.recs)
	}
	got = readAll(t, formatstest.WriteFile(t, "f.csv", []byte(data)), table.ReadOptions{HeaderRow: 2})
	if got.header[0] != "Generated 2024-01-31" {
		t.Fatalf("header_row 2: %q", got.header)
	}
	got = readAll(t, formatstest.WriteFile(t, "f.csv", []byte("x\n"+data)), table.ReadOptions{SkipRows: 1})
	if strings.Join(got.header, ",") != "id,name,amount" {
		t.Fatalf("skip_rows: %q", got.header)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	wide := strings.Repeat("c,", 20) + "c\n"
	if got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(wide+wide)), table.ReadOptions{Limits: table.Limits{MaxColumns: 10}}); !errors.Is(got.err, table.ErrUnreadable) ||
		!strings.Contains(got.err.Error(), "the file has 21 columns (on line 1); the limit is 10") {
		t.Fatalf("columns: %v", got.err)
	}
	jsonCell := `{"a":"` + strings.Repeat("x", 2000) + `"}` + "\n"
	if got := readAll(t, formatstest.WriteFile(t, "f.jsonl", []byte(jsonCell)), table.ReadOptions{Limits: table.Limits{MaxCellBytes: 1000}}); !errors.Is(got.err, table.ErrUnreadable) ||
		!strings.Contains(got.err.Error(), "line 1 is over 1000 bytes") {
		t.Fatalf("JSON value: %v", got.err)
	}
	if got := readAll(t, filepath.Join(t.TempDir(), "missing.csv"), table.ReadOptions{}); !errors.Is(got.err, table.ErrUnreadable) {
		t.Fatalf("missing file: %v", got.err)
	}
	unterminated := "a,b\n1,\"" + strings.Repeat("x", 5000) + "\n2,3\n"
	got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(unterminated)), table.ReadOptions{Limits: table.Limits{MaxCellBytes: 1000}})
	if !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), "unterminated quote") {
		t.Fatalf("cell: %v", got.err)
	}
}

func TestJSONLines(t *testing.T) {
	t.Parallel()
	data := `{"id":1,"name":"a","tags":["x","y"],"n":1.50,"ok":true,"gone":null}` + "\n\n" +
		`not json` + "\n" + `{"id":2,"name":"b\u00e9","extra":{"k":1}}` + "\n"
	got := readAll(t, formatstest.WriteFile(t, "f.jsonl", []byte(data)), table.ReadOptions{})
	if got.err != nil || strings.Join(got.header, ",") != "id,name,tags,n,ok,gone,extra" || len(got.recs) != 3 {
		t.Fatalf("%q %v %v", got.header, got.recs, got.err)
	}
	first := got.recs[0]
	if first.Cells[2] != `["x","y"]` || first.Cells[3] != "1.50" || first.Cells[4] != "true" || first.Cells[5] != "" {
		t.Fatalf("values %q", first.Cells)
	}
	if got.recs[1].RowIssue == nil || got.recs[1].RowIssue.Code != "malformed_json" || got.recs[1].Number != 3 {
		t.Fatalf("malformed line: %+v", got.recs[1])
	}
	if got.recs[2].Cells[1] != "bé" || got.recs[2].Cells[6] != `{"k":1}` {
		t.Fatalf("last %q", got.recs[2].Cells)
	}
}

func TestQuotingRepairs(t *testing.T) {
	t.Parallel()
	type want struct {
		recs   [][]string
		issues []string // "record/column/code"
	}
	cases := map[string]struct {
		data string
		want want
	}{
		"unterminated quote does not swallow the file": {"a,b\n1,\"oops\n2,3\n4,5\n",
			want{[][]string{{"1", `"oops`}, {"2", "3"}, {"4", "5"}}, []string{"1/1/unterminated_quote"}}},
		"stray quote kept, doubled quote before the delimiter closes": {"a,b\n\"x\"y\"\",z\n",
			want{[][]string{{`x"y"`, "z"}}, []string{"1/0/stray_quote"}}},
		"padding after a closing quote": {"a,b\n\"x\"  ,y\n\"p\" \n",
			want{[][]string{{"x", "y"}, {"p"}}, nil}},
		"bare quotes in unquoted cells": {"a,b\n12\" pipe,5'11\"\n",
			want{[][]string{{`12" pipe`, `5'11"`}}, nil}},
		"doubled quotes and delimiters in quotes": {"a,b\n\"say \"\"hi\"\", ok\",2\n",
			want{[][]string{{`say "hi", ok`, "2"}}, nil}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(c.data)), table.ReadOptions{})
			if got.err != nil {
				t.Fatal(got.err)
			}
			var recs [][]string
			var issues []string
			for _, r := range got.recs {
				recs = append(recs, r.Cells)
				for _, ci := range r.CellIssues {
					issues = append(issues, fmt.Sprintf("%d/%d/%s", r.Number, ci.Column, ci.Code))
				}
			}
			if fmt.Sprint(recs) != fmt.Sprint(c.want.recs) || !slices.Equal(issues, c.want.issues) {
				t.Fatalf("got %q %v, want %q %v", recs, issues, c.want.recs, c.want.issues)
			}
		})
	}
}

func TestRecordNumbers(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		file, data string
		want       []int
	}{
		"blank and all-empty records are numbered": {"f.csv", "title\n\na,b\n1,2\n\n,\n \t, \n3,4\n", []int{1, 5}},
		"CR runs before LF are one line end":       {"f.csv", "a,b\r\r\r\n1,2\r\r\r\n3,4\r\n", []int{1, 2}},
		"CR-only blank line":                       {"f.csv", "a,b\r1,2\r\r3,4", []int{1, 3}},
		"JSON lines: the line number":              {"f.jsonl", "{\"a\":1}\n\n{\"a\":2}\r\n  \n{\"a\":3}", []int{1, 3, 5}},
	} {
		got := readAll(t, formatstest.WriteFile(t, c.file, []byte(c.data)), table.ReadOptions{})
		var nums []int
		for _, r := range got.recs {
			nums = append(nums, r.Number)
		}
		if got.err != nil || !slices.Equal(nums, c.want) {
			t.Errorf("%s: numbers %v (%v), want %v", name, nums, got.err, c.want)
		}
	}
}

func TestEncodingFallbackAndOverrides(t *testing.T) {
	t.Parallel()
	// Past the sniffed sample, a Latin-1 byte still reads as its character.
	late := "id,name\n" + strings.Repeat("1,plain ascii text\n", 5000) + "2,Caf\xe9\n"
	got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(late)), table.ReadOptions{})
	if got.err != nil || got.recs[len(got.recs)-1].Cells[1] != "Café" {
		t.Fatalf("late Latin-1: %v %q", got.err, got.recs[len(got.recs)-1].Cells)
	}
	utf16le, _ := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().Bytes([]byte("a,b\nà,ü\n"))
	cases := []struct {
		name string
		data []byte
		opts table.ReadOptions
		want string
	}{
		{"utf-16le without BOM", utf16le, table.ReadOptions{}, "à|ü"},
		{"encoding forced over valid UTF-8", []byte("a,b\n\xc3\xa9,x\n"), table.ReadOptions{Encoding: "windows-1252"}, "Ã©|x"},
		{"delimiter forced", []byte("a;b,c\n1;2,3\n"), table.ReadOptions{Delimiter: ';'}, "1|2,3"},
		{"sep= line", []byte("sep=|\r\na|b\r\n1|2\r\n"), table.ReadOptions{}, "1|2"},
		{"pipes sniffed", []byte("a|b|c\n1|2,5|3\n4|5|6\n"), table.ReadOptions{}, "1|2,5|3"},
	}
	for _, c := range cases {
		got := readAll(t, formatstest.WriteFile(t, "f.csv", c.data), c.opts)
		if got.err != nil || len(got.recs) == 0 || strings.Join(got.recs[0].Cells, "|") != c.want {
			t.Errorf("%s: %v %v", c.name, got.recs, got.err)
		}
	}
	if got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte("a\n1\n")), table.ReadOptions{Encoding: "ebcdic"}); !errors.Is(got.err, table.ErrUnreadable) {
		t.Errorf("unknown encoding: %v", got.err)
	}
}

func TestSniffZips(t *testing.T) {
	t.Parallel()
	zipOf := func(names ...string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
			_, _ = w.Write([]byte("<x/>"))
		}
		_ = zw.Close()
		return buf.Bytes()
	}
	o := NewOpener()
	xlsx := zipOf("[Content_Types].xml", "_rels/.rels", "xl/workbook.xml", "xl/worksheets/sheet1.xml")
	docx := zipOf("[Content_Types].xml", "_rels/.rels", "word/document.xml")
	for _, c := range []struct {
		name string
		head []byte
		want table.Format
	}{
		{"whole workbook", xlsx, table.XLSX},
		{"workbook head only", xlsx[:180], table.XLSX},
		{"word document", docx, ""},
		{"word document head only", docx[:110], ""},
	} {
		got, err := o.Sniff(c.head, "f.xlsx")
		if got != c.want || (c.want == "" && !errors.Is(err, table.ErrUnsupportedFormat)) {
			t.Errorf("%s: %s, %v", c.name, got, err)
		}
	}
	if _, err := o.Sniff([]byte("{\n  \"a\": 1\n}\n"), "f.json"); !errors.Is(err, table.ErrUnsupportedFormat) || !strings.Contains(err.Error(), "JSON document") {
		t.Errorf("pretty-printed JSON: %v", err)
	}
	if got, _ := o.Sniff([]byte("only\none\ncolumn\n"), "f.tsv"); got != table.TSV {
		t.Errorf("a .tsv name breaks the tie: %s", got)
	}
}

func TestBytesReadReachesFileSize(t *testing.T) {
	t.Parallel()
	xlsx := formatstest.Workbook(t, func(f *excelize.File) {
		for i := 1; i <= 50; i++ {
			_ = f.SetSheetRow("Sheet1", fmt.Sprintf("A%d", i), &[]any{"x", i})
		}
	})
	for _, p := range []string{
		formatstest.WriteFile(t, "f.csv", []byte("a,b\n"+strings.Repeat("1,2\n", 1000))),
		formatstest.WriteFile(t, "f.jsonl", []byte(strings.Repeat(`{"a":1}`+"\n", 1000))),
		xlsx,
	} {
		r, err := NewOpener().Open(context.Background(), p, filepath.Base(p), table.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			if r.BytesRead() > fi.Size() {
				t.Fatalf("%s: BytesRead %d past the size %d", p, r.BytesRead(), fi.Size())
			}
		}
		if r.BytesRead() != fi.Size() {
			t.Errorf("%s: BytesRead %d at the end, want %d", filepath.Base(p), r.BytesRead(), fi.Size())
		}
		r.Close()
	}
}
