package normalize

import (
	"context"
	"io"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// BenchmarkEngineRules is BenchmarkEngine's rows with none, or with three
// rules and one computed field (docs/benchmarks.md has the 1M-row runs).
func BenchmarkEngineRules(b *testing.B) {
	const fields = `{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
		{"name":"first_name"},
		{"name":"email","type":"string","format":"email"},
		{"name":"phone","type":"string","format":"phone"},
		{"name":"signup_date","type":"date"},
		{"name":"amount","type":"number"},
		{"name":"quantity","type":"integer","aliases":["qty"]},
		{"name":"currency","type":"string","format":"currency"},
		{"name":"country","type":"string","format":"country"},
		{"name":"active","type":"boolean"}`
	for _, c := range []struct{ name, doc string }{
		{"none", `{"fields":[` + fields + `]}`},
		{"rules", `{"fields":[` + fields + `,{"name":"label","compute":"source['First Name'] + ' ' + source['E-mail']"}],
		  "rules":[
		    {"name":"recent","expression":"row.signup_date == null || row.signup_date >= date('2000-01-01')","fields":["signup_date"]},
		    {"name":"us_phone","expression":"row.country != 'US' || row.phone != null","fields":["phone"]},
		    {"name":"amount","expression":"row.amount == null || row.quantity == null || abs(row.amount - double(row.quantity) * 11.0) < 100000.0","severity":"warning"}]}`},
	} {
		s, err := schema.Parse([]byte(c.doc))
		if err != nil {
			b.Fatal(err)
		}
		rows := contactsRows(100_000)
		o, _ := ParseOptions(ModeNormalize, nil)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				src := Source{Open: func() (table.Reader, error) { return &memReader{rows: rows}, nil }}
				_, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{src}}, Output{Rows: io.Discard, Issues: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
