package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/tabnorm/tabnorm/domain/schema"
)

var lineShapes = []string{
	`{"id":1,"name":"Ann","ok":true,"amount":12.50,"note":null}`,
	`{"id":-2,"name":"Bob \"the\" builder \\ \/ \b\f\n\r\t","ok":false,"amount":1e5}`,
	`{"name":"Cy","id":3}`,
	`{}`,
	` { "id" : 4 , "name" : "Dé\u00e9\u2028" , "ok" : true } `,
	`{"id":5,"name":"emoji 😀 and \ud83d\ude00","note":{"a":[1,2]}}`,
	`{"id":6,"note":[1,"x",null]}`,
	`{"id":7,"name":"bad \udc00 surrogate"}`,
	"{\"id\":8,\"name\":\"invalid \xff utf8\"}",
	`{"id":9,"unknown":"x","id":10}`,
}

// TestRowReader_asEncodingJSONReadsIt: every shape of stored line gives
// the values encoding/json gives.
func TestRowReader_asEncodingJSONReadsIt(t *testing.T) {
	t.Parallel()
	cols := []Column{{Name: "id"}, {Name: "name"}, {Name: "ok"}, {Name: "amount"}, {Name: "note"}}
	rr := newRowReader(strings.NewReader(strings.Join(lineShapes, "\n\n")+"\n"), cols)
	for _, shape := range lineShapes {
		got, err := rr.next()
		if err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		dec := json.NewDecoder(strings.NewReader(shape))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if !reflect.DeepEqual(got[i], obj[c.Name]) {
				t.Errorf("%s: %s = %#v, want %#v", shape, c.Name, got[i], obj[c.Name])
			}
		}
	}
	if _, err := rr.next(); err != io.EOF {
		t.Fatalf("after the last line: %v", err)
	}
	if _, err := newRowReader(strings.NewReader(`{"id":1,"name":`+"\n"), cols).next(); err == nil {
		t.Fatal("a broken line read without an error")
	}
}

func contactsRows(n int) []byte {
	var b bytes.Buffer
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		fmt.Fprintf(&b, `{"id":%d,"first_name":"Aaron","last_name":"Cruz","email":"aaron.cruz%d@mail.co.uk","phone":"+4930%07d","signup_date":"2021-11-10","amount":%d.78,"quantity":27,"currency":"USD","country":"US","active":true,"notes":"speaks fran\u00e7ais"}`+"\n",
			i, r.IntN(1000), r.IntN(10_000_000), r.IntN(1000))
	}
	return b.Bytes()
}

var contactCols = []Column{{Name: "id", Type: schema.Integer, Required: true}, {Name: "first_name", Type: schema.String}, {Name: "last_name", Type: schema.String},
	{Name: "email", Type: schema.String}, {Name: "phone", Type: schema.String}, {Name: "signup_date", Type: schema.Date}, {Name: "amount", Type: schema.Number},
	{Name: "quantity", Type: schema.Integer}, {Name: "currency", Type: schema.String}, {Name: "country", Type: schema.String},
	{Name: "active", Type: schema.Boolean}, {Name: "notes", Type: schema.String}}

func BenchmarkWriteRows(b *testing.B) {
	rows := contactsRows(50_000)
	b.Run("parquet", func(b *testing.B) {
		b.SetBytes(int64(len(rows)))
		for b.Loop() {
			plans, err := PlanParquet(bytes.NewReader(rows), contactCols)
			if err != nil {
				b.Fatal(err)
			}
			if err := WriteRowsParquet(io.Discard, bytes.NewReader(rows), contactCols, plans, ParquetOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("xlsx", func(b *testing.B) {
		b.SetBytes(int64(len(rows)))
		for b.Loop() {
			if err := WriteRowsXLSX(io.Discard, bytes.NewReader(rows), contactCols, XLSXOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestWriteRowsParquet_inPlaceAsDecoded: the rows read in place are
// written as the values encoding/json's reading gives, across batches
// (the writer's array of values is used again) and for every kind of cell.
func TestWriteRowsParquet_inPlaceAsDecoded(t *testing.T) {
	t.Parallel()
	cols := []Column{{Name: "id", Type: schema.Integer, Required: true}, {Name: "name", Type: schema.String},
		{Name: "born", Type: schema.Date}, {Name: "seen", Type: schema.DateTime}, {Name: "ok", Type: schema.Boolean},
		{Name: "price", Type: schema.Number}, {Name: "mixed", Type: schema.String}}
	var b bytes.Buffer
	for i := range 1000 {
		name := fmt.Sprintf(`"name %d é \"q\""`, i)
		if i%7 == 0 {
			name = `""`
		}
		mixed := []string{`"text"`, `12.5`, `true`, `null`, `{"a":1}`}[i%5]
		fmt.Fprintf(&b, `{"id":%d,"name":%s,"born":"19%02d-0%d-1%d","seen":"2024-03-05T14:%02d:00.%06dZ","ok":%v,"price":%d.25,"mixed":%s}`+"\n",
			i, name, i%100, 1+i%9, i%10, i%60, i, i%2 == 0, i, mixed)
	}
	rows := b.Bytes()
	plans, err := PlanParquet(bytes.NewReader(rows), cols)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteRowsParquet(&out, bytes.NewReader(rows), cols, plans, ParquetOptions{RowGroupRows: 300}); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]parquet.Row, 1000)
	r := parquet.NewReader(f)
	if n, _ := r.ReadRows(got); n != 1000 {
		t.Fatalf("read %d rows", n)
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	vals := make([]any, len(cols))
	for n, line := range bytes.Split(bytes.TrimSuffix(rows, []byte("\n")), []byte("\n")) {
		if err := DecodeLine(line, names, vals); err != nil {
			t.Fatal(err)
		}
		for i := range cols {
			want, err := parquetValue(vals[i], plans[i])
			if err != nil {
				t.Fatal(err)
			}
			if g := got[n][i]; g.IsNull() != want.IsNull() || !want.IsNull() && !parquet.Equal(g, want) {
				t.Fatalf("row %d, %s: %v, want %v", n+1, cols[i].Name, g, want)
			}
		}
	}
}

// plainRunByByte is plainRun a byte at a time, as it was before it read
// eight at once.
func plainRunByByte(line []byte, j int) (int, bool) {
	for j < len(line) {
		switch c := line[j]; {
		case c == '"' || c == '\\':
			return j, true
		case c < 0x20:
			return 0, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(line[j:])
			if r == utf8.RuneError && size == 1 {
				return 0, false
			}
			j += size
		default:
			j++
		}
	}
	return 0, false
}

// TestPlainRun_asByteAtATime: reading eight bytes at once stops where a
// byte at a time does, for every byte value at every place of a word and
// for two such bytes in one word.
func TestPlainRun_asByteAtATime(t *testing.T) {
	t.Parallel()
	base := []byte(`abcdefghijklmnopqrstuvwx"`)
	for b := range 256 {
		for at := range len(base) - 1 {
			for _, second := range []byte{'"', '\\', 0x1f, 0x80, 0xc3, 'z'} {
				line := bytes.Clone(base)
				line[at] = byte(b)
				if at+3 < len(line)-1 {
					line[at+3] = second
				}
				for start := range 3 {
					gotEnd, gotOK := plainRun(line, start)
					wantEnd, wantOK := plainRunByByte(line, start)
					if gotEnd != wantEnd || gotOK != wantOK {
						t.Fatalf("%q from %d: %d %v, want %d %v", line, start, gotEnd, gotOK, wantEnd, wantOK)
					}
				}
			}
		}
	}
}
