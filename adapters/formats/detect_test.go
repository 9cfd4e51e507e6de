package formats

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// readDetected reads a file and returns what its reader detected.
func readDetected(t *testing.T, path string, opts table.ReadOptions) (parsed, table.Detection) {
	t.Helper()
	r, err := NewOpener().Open(t.Context(), path, filepath.Base(path), opts)
	if err != nil {
		return parsed{err: err}, table.Detection{}
	}
	det := r.(table.Describer).Detection()
	r.Close()
	return readAll(t, path, opts), det
}

// optionsOf turns a Detection back into read options, as a caller passing
// result.detected back as options does.
func optionsOf(d table.Detection) table.ReadOptions {
	o := table.ReadOptions{Encoding: d.Encoding, HeaderRow: d.HeaderRow, NoHeader: d.HeaderRow == 0 && d.Format != table.JSONL}
	if d.Format == table.JSONL {
		return o
	}
	o.Delimiter = []rune(d.Delimiter)[0]
	o.Quote, o.Escape = d.Quote, d.Escape
	if o.Quote == "" {
		o.Quote = table.QuoteNone
	}
	if o.Escape == "" {
		o.Escape = table.EscapeNone
	}
	return o
}

// TestRealWorldClasses reads one small file of each class of real-world
// file (testdata/real) and checks the reading and the Detection, then
// reads it again with the Detection as options: the same reading.
func TestRealWorldClasses(t *testing.T) {
	t.Parallel()
	cases := []realWorldClass{
		{"ru-cp1251.csv", "Наименование|Цена|Количество|Город", "Молоко пастеризованное|89,90|12|Москва", 4, "windows-1251", true, `;"`, 1, nil},
		{"ru-koi8r.csv", "Наименование|Цена|Количество|Город", "Молоко пастеризованное|89,90|12|Москва", 4, "KOI8-R", true, `;"`, 1, nil},
		{"ru-iso88595.csv", "Наименование|Цена|Количество|Город", "Молоко пастеризованное|89.90|12|Москва", 4, "ISO-8859-5", true, `,"`, 1, nil},
		{"gr-cp1253.csv", "Όνομα|Πόλη|Ποσό", "Γιώργος Παπαδόπουλος|Αθήνα|120.50", 4, "windows-1253", true, `,"`, 1, nil},
		{"gr-iso88597.csv", "Όνομα|Πόλη|Ποσό", "Γιώργος Παπαδόπουλος|Αθήνα|120.50", 4, "ISO-8859-7", true, `,"`, 1, nil},
		{"ja-sjis.csv", "氏名|住所|電話番号", "山田太郎|東京都新宿区西新宿二丁目|03-1234-5678", 3, "Shift_JIS", true, `,"`, 1, nil},
		{"ja-eucjp.csv", "氏名|住所|電話番号", "山田太郎|東京都新宿区西新宿二丁目|03-1234-5678", 3, "EUC-JP", true, `,"`, 1, nil},
		{"zh-gb18030.csv", "姓名|城市|金额", "张伟|北京市朝阳区|1200.50", 4, "GB18030", true, `,"`, 1, nil},
		{"zh-big5.csv", "姓名|城市|金額", "陳志明|臺北市大安區|1200.50", 3, "Big5", true, `,"`, 1, nil},
		{"ko-euckr.csv", "이름|도시|금액", "김민준|서울특별시 강남구|1200.50", 3, "EUC-KR", true, `,"`, 1, nil},
		{"fr-cp1252.csv", "Nom|Ville|Montant", "Béatrice Lefèvre|Besançon|12,50", 3, "windows-1252", true, `;"`, 1, nil},
		{"banner-delimited.csv", "id|date|region|amount", "1|2024-01-02|North|120.50", 4, "UTF-8", false, `,"`, 2, []int{1}},
		{"sparse-banner.csv", "station|jan|feb|mar|apr|may", "A1|3.2||||", 5, "UTF-8", false, `;"`, 4, []int{1, 2}},
		{"group-header.csv", "region|q1|q2|q1|q2", "North|10|12|7|8", 3, "UTF-8", false, `,"`, 2, []int{1}},
		{"notes-above.tsv", "sample|nitrate|phosphate", "S-001|12.5|0.8", 3, "UTF-8", false, "\t\"", 1, nil}, // # lines are comments (skipped_comments)
		{"headerless-numbers.csv", "column_1|column_2|column_3", "1|2024-01-02|120.50", 3, "UTF-8", false, `,"`, 0, nil},
		{"headerless-titled.csv", "column_1|column_2|column_3", "Export 2024", 4, "UTF-8", false, `,"`, 0, nil},
		{"bom.jsonl", "id|name", "1|Zoë", 2, "UTF-8", false, "", 0, nil},
		{"headerless-names.csv", "column_1|column_2|column_3", "Alice|Paris|FR", 4, "UTF-8", false, `,"`, 0, nil},
		{"year-header.csv", "country|2019|2020|2021", "France|1.2|1.3|1.4", 3, "UTF-8", false, `,"`, 1, nil},
		{"years-only-header.csv", "|2019|2020|2021", "Paris|1.2|1.3|1.4", 3, "UTF-8", false, `;"`, 1, nil},
		{"single-quote.csv", "id|name|city", "1|Smith, John|Leeds", 3, "UTF-8", false, `,'`, 1, nil},
		{"backslash-escape.csv", "id|comment", `1|he said "no", then left`, 3, "UTF-8", false, `,"\`, 1, nil},
		{"space-after-delimiter.csv", "id| name| city", "1|Smith, John| Leeds", 2, "UTF-8", false, `,"`, 1, nil},
		{"space-delimited.txt", "id|name|score", "1|John Smith|12", 3, "UTF-8", false, ` "`, 1, nil},
		{"colon.txt", "user|uid|home", "root|0|/root", 3, "UTF-8", false, `:"`, 1, nil},
		{"one-column.csv", "email", "ann@example.com", 2, "UTF-8", false, `,"`, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			checkRealWorldClass(t, c)
		})
	}
}

// realWorldClass is a file of testdata/real and how it must read.
type realWorldClass struct {
	file      string
	header    string // joined by |
	first     string // first record joined by |
	records   int
	encoding  string
	guessed   bool
	dialect   string // delimiter, quote, escape
	headerRow int
	skipped   []int
}

func checkRealWorldClass(t *testing.T, c realWorldClass) {
	t.Helper()
	path := filepath.Join("testdata", "real", c.file)
	got, det := readDetected(t, path, table.ReadOptions{})
	if got.err != nil {
		t.Fatal(got.err)
	}
	if h := strings.Join(got.header, "|"); h != c.header {
		t.Errorf("header %q, want %q", h, c.header)
	}
	if len(got.recs) != c.records || strings.Join(got.recs[0].Cells, "|") != c.first {
		t.Errorf("%d records, first %q; want %d, %q", len(got.recs), got.recs[0].Cells, c.records, c.first)
	}
	conf := "certain"
	if c.guessed {
		conf = "guessed"
	}
	if det.Encoding != c.encoding || det.EncodingConfidence != conf {
		t.Errorf("encoding %s (%s), want %s (%s)", det.Encoding, det.EncodingConfidence, c.encoding, conf)
	}
	if d := det.Delimiter + det.Quote + det.Escape; d != c.dialect {
		t.Errorf("dialect %q, want %q", d, c.dialect)
	}
	if det.HeaderRow != c.headerRow || !slices.Equal(det.SkippedRows, c.skipped) || det.SkippedCount != len(c.skipped) {
		t.Errorf("header row %d, skipped %v (%d); want %d, %v", det.HeaderRow, det.SkippedRows, det.SkippedCount, c.headerRow, c.skipped)
	}
	// The Detection as options reads the same.
	again, det2 := readDetected(t, path, optionsOf(det))
	if again.err != nil || fmt.Sprint(again.header) != fmt.Sprint(got.header) || fmt.Sprint(cellsOf(again.recs)) != fmt.Sprint(cellsOf(got.recs)) {
		t.Errorf("with %+v as options: %q %q %v", optionsOf(det), again.header, cellsOf(again.recs), again.err)
	}
	det.EncodingConfidence, det.RareEscapes = "given", 0 // given, nothing is guessed
	if fmt.Sprint(det2) != fmt.Sprint(det) {
		t.Errorf("detection with its own options %+v, want %+v", det2, det)
	}
}

func TestHeaderRowNone(t *testing.T) {
	t.Parallel()
	path := formatstest.WriteFile(t, "f.csv", []byte("id,name\n1,a\n2,b,extra\n"))
	got, det := readDetected(t, path, table.ReadOptions{NoHeader: true})
	if got.err != nil || strings.Join(got.header, ",") != "column_1,column_2,column_3" || len(got.recs) != 3 ||
		strings.Join(got.recs[0].Cells, ",") != "id,name" || got.recs[0].Number != 1 || det.HeaderRow != 0 {
		t.Fatalf("%q %v %v %+v", got.header, got.recs, got.err, det)
	}
}

// TestCellLimitUnderTheBuffer: the cell limit holds for cells that fit in
// the read buffer, quoted or not, on the fast and the general path.
func TestCellLimitUnderTheBuffer(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2000)
	for name, data := range map[string]string{
		"unquoted":           "a,b\n1," + big + "\n2,3\n",
		"quoted":             "a,b\n1,\"" + big + "\"\n2,3\n",
		"quoted, last":       "a,b\n1,\"" + big + "\"",
		"unquoted, general":  "a,b\n1,\"x\"y\"," + big + "\n2,3\n",
		"quoted, line break": "a,b\n1,\"" + big + "\n" + big + "\"\n",
	} {
		got := readAll(t, formatstest.WriteFile(t, "f.csv", []byte(data)), table.ReadOptions{Limits: table.Limits{MaxCellBytes: 1000}})
		if !errors.Is(got.err, table.ErrUnreadable) || !strings.Contains(got.err.Error(), "over 1000 bytes") {
			t.Errorf("%s: %v (%d records)", name, got.err, len(got.recs))
		}
	}
}

func TestJSONLinesWithoutKeys(t *testing.T) {
	t.Parallel()
	got := readAll(t, formatstest.WriteFile(t, "f.jsonl", []byte("{}\n{}\n{ }\n")), table.ReadOptions{})
	if got.err != nil || len(got.header) != 0 || len(got.recs) != 3 || len(got.recs[0].Cells) != 0 || got.recs[2].Number != 3 {
		t.Fatalf("%q %v %v", got.header, got.recs, got.err)
	}
	// Some objects without keys among others: rows of missing values.
	got, det := readDetected(t, formatstest.WriteFile(t, "f.jsonl", []byte("{}\n{\"a\":1}\n{}\n")), table.ReadOptions{})
	if got.err != nil || len(got.header) != 1 || len(got.recs) != 3 || got.recs[0].Cells[0] != "" || det.Format != table.JSONL || det.Encoding != "UTF-8" {
		t.Fatalf("%q %v %v %+v", got.header, got.recs, got.err, det)
	}
	// JSON lines in UTF-16 are decoded.
	u16 := []byte{0xFF, 0xFE}
	for _, r := range "{\"name\":\"Zoë\"}\n" {
		u16 = append(u16, byte(r), byte(r>>8))
	}
	got, det = readDetected(t, formatstest.WriteFile(t, "f.jsonl", u16), table.ReadOptions{})
	if got.err != nil || len(got.recs) != 1 || got.recs[0].Cells[0] != "Zoë" || det.Encoding != "UTF-16LE" {
		t.Fatalf("%q %v %v %+v", got.header, got.recs, got.err, det)
	}
}
