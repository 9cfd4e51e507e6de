package formats

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

var contactsHeader = []string{"ID", "First Name", "Last Name", "E-mail", "Phone", "Signup Date", "Amount", "Qty", "Currency", "Country", "Active", "Notes"}

func contactsRecord(i int) []string {
	return []string{fmt.Sprintf("%08d", i), "Ann", "Lee", fmt.Sprintf("ann.lee%d@example.com", i), "+1 (415) 555-2671", "31/01/2024",
		"1,234.50", "6,700", "EUR", "Germany", "yes", `said "hi", twice`}
}

// benchFile writes 100k contacts-like records in a format and returns its path.
// benchRows is how many records a benchmark file holds.
const benchRows = 100_000

func benchFile(b *testing.B, format string) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "contacts."+format)
	if format == "xlsx" {
		writeBenchXLSX(b, path)
		return path
	}
	var buf bytes.Buffer
	if format != "jsonl" {
		writeBenchRecord(&buf, format, contactsHeader)
	}
	for i := range benchRows {
		writeBenchRecord(&buf, format, contactsRecord(i))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// writeBenchXLSX writes the contacts as spreadsheets hold them: real date
// cells and numbers.
func writeBenchXLSX(b *testing.B, path string) {
	b.Helper()
	f := excelize.NewFile()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		b.Fatal(err)
	}
	dateStyle, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		b.Fatal(err)
	}
	row := make([]any, len(contactsHeader))
	for i, h := range contactsHeader {
		row[i] = h
	}
	_ = sw.SetRow("A1", row)
	day := time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)
	for i := range benchRows {
		for j, c := range contactsRecord(i) {
			row[j] = c
		}
		row[5] = excelize.Cell{StyleID: dateStyle, Value: day.AddDate(0, 0, -i%3000)}
		row[6] = 1234.5 + float64(i%100)
		row[7] = i % 7000
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		_ = sw.SetRow(cell, row)
	}
	_ = sw.Flush()
	if err := f.SaveAs(path); err != nil {
		b.Fatal(err)
	}
}

// writeBenchRecord appends one record as a line of format: csv, tsv or jsonl.
func writeBenchRecord(buf *bytes.Buffer, format string, rec []string) {
	switch format {
	case "csv":
		for j, c := range rec {
			if j > 0 {
				buf.WriteByte(',')
			}
			if strings.ContainsAny(c, ",\"\n") {
				c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			}
			buf.WriteString(c)
		}
	case "tsv":
		buf.WriteString(strings.Join(rec, "\t"))
	case "jsonl":
		buf.WriteByte('{')
		for j, c := range rec {
			if j > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(buf, "%q:%q", contactsHeader[j], c)
		}
		buf.WriteByte('}')
	}
	buf.WriteByte('\n')
}

func benchReader(b *testing.B, format string) {
	path := benchFile(b, format)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewOpener().Open(context.Background(), path, filepath.Base(path), table.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		r.Close()
		if n != 100_000 {
			b.Fatalf("%d records", n)
		}
	}
}

// BenchmarkEncodingCSVFloor reads the same file as BenchmarkCSVReader with
// encoding/csv at its fastest (ReuseRecord, LazyQuotes, any field count),
// and with each record copied, as the engine must do with a reused record
// (it keeps records in batches): the bar for our own scanner.
func BenchmarkEncodingCSVFloor(b *testing.B) {
	path := benchFile(b, "csv")
	fi, _ := os.Stat(path)
	for _, owned := range []bool{false, true} {
		b.Run(map[bool]string{false: "reused", true: "owned"}[owned], func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				if n := readEncodingCSV(b, path, owned); n != 100_001 {
					b.Fatalf("%d records", n)
				}
			}
		})
	}
}

// readEncodingCSV reads the file with encoding/csv and counts its
// records; owned keeps a copy of each, as a reader of owned records must.
func readEncodingCSV(b *testing.B, path string, owned bool) int {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 256<<10))
	r.ReuseRecord, r.LazyQuotes, r.FieldsPerRecord = true, true, -1
	var keep []string
	n := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		if owned {
			keep = append(keep[:0], rec...)
		}
		n++
	}
}

func BenchmarkCSVReader(b *testing.B)   { benchReader(b, "csv") }
func BenchmarkTSVReader(b *testing.B)   { benchReader(b, "tsv") }
func BenchmarkJSONLReader(b *testing.B) { benchReader(b, "jsonl") }
func BenchmarkXLSXReader(b *testing.B)  { benchReader(b, "xlsx") }

// BenchmarkOpenGuessed measures opening a file whose encoding is guessed
// (every candidate decodes and scores the 64 KiB sample) and whose dialect
// is sniffed among every candidate.
func BenchmarkOpenGuessed(b *testing.B) {
	line := "Молоко пастеризованное;89,90;12;Москва\n"
	text := "Наименование;Цена;Количество;Город\n" + strings.Repeat(line, (SniffSize/len(line))+10)
	data, err := charmap.Windows1251.NewEncoder().String(text)
	if err != nil {
		b.Fatal(err)
	}
	path := formatstest.WriteFile(b, "f.csv", []byte(data))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewOpener().Open(b.Context(), path, "f.csv", table.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
