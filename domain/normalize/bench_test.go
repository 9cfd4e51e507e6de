package normalize

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

func BenchmarkCoerce(b *testing.B) {
	cases := []struct {
		name   string
		field  schema.Field
		values []string
	}{
		{"integer", schema.Field{Type: schema.Integer}, []string{"42", "6,700", "7.0", "00081135561"}},
		{"number", schema.Field{Type: schema.Number}, []string{"297.78", "1,234.50", "$12", "12.00 USD", "(7)"}},
		{"boolean", schema.Field{Type: schema.Boolean}, []string{"yes", "N", "true", "FALSE", "1"}},
		{"date", schema.Field{Type: schema.Date}, []string{"2024-01-31", "31/01/2024", "Jan 31 2024", "31 January 2024", "2024-01-31T10:22:00Z"}},
		{"datetime", schema.Field{Type: schema.DateTime}, []string{"2024-01-31T10:22:00Z", "2024-01-31 10:22"}},
		{"email", schema.Field{Type: schema.String, Format: schema.Email}, []string{"Ann.Lee@Example.com", "bob@mail.co.uk"}},
		{"phone", schema.Field{Type: schema.String, Format: schema.Phone}, []string{"+1 (415) 555-2671", "415.555.2671", "+44 20 7946 0958"}},
		{"country", schema.Field{Type: schema.String, Format: schema.Country}, []string{"DE", "Germany", "united states", "México"}},
		{"currency", schema.Field{Type: schema.String, Format: schema.Currency}, []string{"USD", "€", "gbp"}},
		{"string", schema.Field{Type: schema.String}, []string{"hello world"}},
	}
	for _, c := range cases {
		col := coerce.Compile(c.field, false, coerce.OrderDMY, "", "US")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var sc coerce.Scratch
			i := 0
			for b.Loop() {
				sc.Reset() // as the engine does between rows
				_, _ = col.Value(c.values[i%len(c.values)], &sc)
				i++
			}
		})
	}
}

// contactsRows makes n contacts-like rows with the messiness of the
// benchmark data (mixed formats, a few bad values).
func contactsRows(n int) [][]string {
	rows := [][]string{{"ID", "First Name", "E-mail", "Phone", "Signup Date", "Amount", "Qty", "Currency", "Country", "Active"}}
	dates := []string{"2024-01-31", "31/01/2024", "Jan 31 2024", "2024-01-31T10:22:00Z", "15.03.2023"}
	phones := []string{"+1 (415) 555-2671", "415.555.2671", "+44 20 7946 0958", ""}
	amounts := []string{"1,234.50", "$12", " 7.0 ", "12.00 USD", "-3.25"}
	for i := range n {
		rows = append(rows, []string{fmt.Sprint(i + 1), "Ann", fmt.Sprintf("User%d@Example.com", i), phones[i%4], dates[i%5],
			amounts[i%5], "6,700", "EUR", []string{"DE", "Germany", "usa"}[i%3], []string{"yes", "N", "true"}[i%3]})
	}
	return rows
}

func BenchmarkEngine(b *testing.B) {
	s, err := schema.Parse([]byte(`{"fields":[
		{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
		{"name":"first_name"},
		{"name":"email","type":"string","format":"email"},
		{"name":"phone","type":"string","format":"phone"},
		{"name":"signup_date","type":"date"},
		{"name":"amount","type":"number"},
		{"name":"quantity","type":"integer","aliases":["qty"]},
		{"name":"currency","type":"string","format":"currency"},
		{"name":"country","type":"string","format":"country"},
		{"name":"active","type":"boolean"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	rows := contactsRows(100_000)
	size := 0
	for _, r := range rows {
		for _, c := range r {
			size += len(c) + 1
		}
	}
	o, _ := ParseOptions(ModeNormalize, nil)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		src := Source{Open: func() (table.Reader, error) { return &memReader{rows: rows}, nil }}
		res, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{src}}, Output{Rows: io.Discard, Issues: io.Discard})
		if err != nil || res.RowCount != 100_000 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkBatchKeep copies a batch of contacts-like records as the reader
// goroutine does: with the records' Text (one copy a record) and without
// (one copy a cell).
func BenchmarkBatchKeep(b *testing.B) {
	line := `12,Aaron,Cruz,Aaron.Cruz714@mail.co.uk,+49 30 4434106,2021-11-10,297.78,27,USD,United States,yes,speaks français`
	cells := strings.Split(line, ",")
	for k, c := range cells { // slices of line, as the CSV reader hands them out
		at := strings.Index(line, c)
		cells[k] = line[at : at+len(c)]
	}
	for _, withText := range []bool{false, true} {
		b.Run(map[bool]string{false: "cells", true: "text"}[withText], func(b *testing.B) {
			var bt batch
			for b.Loop() {
				bt.recs, bt.cells, bt.text = bt.recs[:0], bt.cells[:0], bt.text[:0]
				for range batchSize {
					rec := table.Record{Cells: cells}
					if withText {
						rec.Text = line
					}
					bt.keep(&rec)
					bt.recs = append(bt.recs, rec)
				}
			}
		})
	}
}
