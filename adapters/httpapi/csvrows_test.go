package httpapi

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceCSV is the conversion as encoding/json reads the lines: what
// writeCSV must write, byte for byte.
func referenceCSV(w io.Writer, rc io.Reader, columns []string) {
	cw := csv.NewWriter(w)
	_ = cw.Write(columns)
	dec := json.NewDecoder(bufio.NewReaderSize(rc, 64<<10))
	dec.UseNumber()
	rec := make([]string, len(columns))
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			break
		}
		for i, col := range columns {
			rec[i] = csvText(obj[col])
		}
		if err := cw.Write(rec); err != nil {
			return
		}
	}
	cw.Flush()
}

var csvLines = []string{
	`{"id":1,"name":"Ann","email":"ann@x.io","ok":true,"amount":12.50,"note":null}`,
	`{"id":-2,"name":"Bob \"the\" builder","email":"b\\o@x.io","ok":false,"amount":1e5,"note":"line\nbreak, comma"}`,
	`{"name":"Cy","id":3}`,
	`{}`,
	` { "id" : 4 , "name" : "Dé\u00e9\u2028x\/y\t\r\b\f" , "ok" : true } `,
	`{"id":5,"name":"emoji 😀 and \ud83d\ude00","extra":{"a":[1,2]}}`,
	`{"id":6,"note":{"z":1,"a":"b"},"amount":[1,"x",null]}`,
	`{"id":7,"name":"bad \udc00 surrogate"}`,
	"{\"id\":8,\"name\":\"invalid \xff utf8\"}",
	`{"id":9,"unknown":"x","id":10}`,
	`{"id":11,"name":"","email":"\u0000"}`,
	`{"id":13,"name":" lead","email":"\\.","note":"\u00a0nbsp","ok":"\u2028x","amount":"a\"b,c\rd"}`,
	`{"row":12,"source_file":null,"column":"E-mail","field":"email","severity":"error","code":"invalid_email","message":"\"x\" is not an e-mail address.","value":"x"}`,
}

// TestWriteCSV_asEncodingJSONReadsIt: every shape of stored line gives the
// cells encoding/json gives, and a line that is not JSON ends the file
// where it did.
func TestWriteCSV_asEncodingJSONReadsIt(t *testing.T) {
	t.Parallel()
	columns := []string{"id", "name", "email", "ok", "amount", "note"}
	for _, tc := range []struct {
		name  string
		lines []string
		cols  []string
	}{
		{"each shape", csvLines, columns},
		{"issues", csvLines[len(csvLines)-1:], issueColumns},
		{"a broken line ends it", []string{csvLines[0], `{"id":2,"name":`, csvLines[1]}, columns},
		{"a long line", []string{`{"id":1,"name":"` + strings.Repeat("é", 80_000) + `"}`, csvLines[0]}, columns},
		{"blank lines", []string{"", csvLines[0], "  ", csvLines[2], ""}, columns},
	} {
		in := strings.Join(tc.lines, "\n") + "\n"
		var got, want bytes.Buffer
		writeCSV(&got, strings.NewReader(in), tc.cols)
		referenceCSV(&want, strings.NewReader(in), tc.cols)
		if got.String() != want.String() {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got.String(), want.String())
		}
	}
}

// FuzzWriteCSV holds the fast reading equal to encoding/json's on any
// line.
func FuzzWriteCSV(f *testing.F) {
	for _, l := range csvLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return // one line: a stream of several is the decoder's own business
		}
		columns := []string{"id", "name", "email", "ok", "amount", "note"}
		var got, want bytes.Buffer
		writeCSV(&got, strings.NewReader(line+"\n"), columns)
		referenceCSV(&want, strings.NewReader(line+"\n"), columns)
		var obj map[string]any
		if json.Unmarshal([]byte(line), &obj) != nil {
			return // not one object: the reference may read a prefix of it
		}
		if got.String() != want.String() {
			t.Fatalf("%q:\n got %q\nwant %q", line, got.String(), want.String())
		}
	})
}

func contactsJSONL(n int) []byte {
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		fmt.Fprintf(&b, `{"id":%d,"first_name":"Aaron","last_name":"Cruz","email":"aaron.cruz%d@mail.co.uk","phone":"+4930%07d","signup_date":"2021-11-10","amount":%d.78,"quantity":27,"currency":"USD","country":"US","active":true,"notes":"speaks fran\u00e7ais"}`+"\n",
			i, r.IntN(1000), r.IntN(10_000_000), r.IntN(1000))
	}
	return b.Bytes()
}

var contactColumns = []string{"id", "first_name", "last_name", "email", "phone", "signup_date", "amount", "quantity", "currency", "country", "active", "notes"}

func BenchmarkWriteCSV(b *testing.B) {
	in := contactsJSONL(20_000)
	b.SetBytes(int64(len(in)))
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			writeCSV(io.Discard, bytes.NewReader(in), contactColumns)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			referenceCSV(io.Discard, bytes.NewReader(in), contactColumns)
		}
	})
}
