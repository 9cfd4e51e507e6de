package normalize

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// TestInferRegionCodes: a column of region codes (NUTS) is an identifier,
// never integer; under an integer field each code is refused, quoted, and
// no two codes come out as the same number.
func TestInferRegionCodes(t *testing.T) {
	t.Parallel()
	inf := execute(t, ModeInfer, nil, "", csvSource(t, "region-codes.csv"))
	if inf.err != nil {
		t.Fatal(inf.err)
	}
	if f := inf.res.InferredSchema.Fields[0]; f.Name != "region" || f.Type != schema.String {
		t.Fatalf("region inferred as %+v", f)
	}
	if f := inf.res.InferredSchema.Fields[2]; f.Type != schema.Integer {
		t.Fatalf("cases inferred as %+v", f)
	}
	got := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"region","type":"integer"},{"name":"name","type":"string"}]}`), "",
		csvSource(t, "region-codes.csv"))
	if got.err != nil {
		t.Fatal(got.err)
	}
	if len(got.rows) != 0 {
		t.Fatalf("%d rows came out with a region code read as a number: %v", len(got.rows), got.rows)
	}
	refused := 0
	for _, is := range got.issues {
		if is["code"] == "invalid_integer" && strings.HasPrefix(is["value"].(string), "IT") {
			refused++
		}
	}
	if refused != 6 {
		t.Fatalf("%d of 6 codes refused as invalid_integer: %v", refused, got.issues)
	}
}

// TestInferCurrencyColumn: a column of amounts with one currency code is a
// number, and the profile names the currency.
func TestInferCurrencyColumn(t *testing.T) {
	t.Parallel()
	inf := execute(t, ModeInfer, nil, "", csvSource(t, "amounts-eur.csv"))
	if inf.err != nil {
		t.Fatal(inf.err)
	}
	if f := inf.res.InferredSchema.Fields[1]; f.Type != schema.Integer {
		t.Fatalf("price inferred as %+v", f)
	}
	if p := inf.res.Profile[1]; p.Currency != "EUR" {
		t.Fatalf("profile currency %q, want EUR", p.Currency)
	}
	if p := inf.res.Profile[0]; p.Currency != "" {
		t.Fatalf("item's currency %q", p.Currency)
	}
	mixed := execute(t, ModeInfer, nil, "", csvSource(t, "amounts-mixed.csv"))
	if p := mixed.res.Profile[1]; p.Currency != "" || strings.Join(p.Currencies, ",") != "EUR,GBP,USD" {
		t.Fatalf("mixed profile %q %v", p.Currency, p.Currencies)
	}
}

// TestMixedCurrencies: amounts in several currencies under a number field,
// with no currency field to keep the codes in, are a warning that names
// the codes; one currency, or a currency field mapped to a column of the
// file, is quiet (a currency field the file does not fill keeps nothing).
func TestMixedCurrencies(t *testing.T) {
	t.Parallel()
	price := mustSchema(t, `{"fields":[{"name":"item","type":"string"},{"name":"price","type":"number"}]}`)
	got := execute(t, ModeNormalize, price, "", csvSource(t, "amounts-mixed.csv"))
	if got.err != nil || len(got.rows) != 5 {
		t.Fatalf("%v %d rows", got.err, len(got.rows))
	}
	var warned []map[string]any
	for _, is := range got.issues {
		if is["code"] == "mixed_currencies" {
			warned = append(warned, is)
		}
	}
	if len(warned) != 1 || warned[0]["severity"] != "warning" || warned[0]["field"] != "price" {
		t.Fatalf("mixed_currencies = %v (all %v)", warned, got.issues)
	}
	if msg := warned[0]["message"].(string); !strings.Contains(msg, "EUR (3)") || !strings.Contains(msg, "USD (1)") || !strings.Contains(msg, "GBP (1)") {
		t.Fatalf("message %q does not count each currency", msg)
	}
	unfilled := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"item","type":"string"},{"name":"price","type":"number"},{"name":"cur","type":"string","format":"currency"}]}`), "",
		csvSource(t, "amounts-mixed.csv"))
	if n := countCode(unfilled.issues, "mixed_currencies"); n != 1 {
		t.Fatalf("a currency field no column fills: %d mixed_currencies", n)
	}
	for _, quiet := range []struct {
		name   string
		schema string
		file   string
	}{
		{"one currency", `{"fields":[{"name":"item","type":"string"},{"name":"price","type":"number"}]}`, "amounts-eur.csv"},
		{"a currency column", `{"fields":[{"name":"item","type":"string"},{"name":"price","type":"number"},{"name":"currency","type":"string","format":"currency"}]}`, "amounts-mixed-currency-column.csv"},
	} {
		r := execute(t, ModeNormalize, mustSchema(t, quiet.schema), "", csvSource(t, quiet.file))
		for _, is := range r.issues {
			if is["code"] == "mixed_currencies" {
				t.Errorf("%s: %v", quiet.name, is)
			}
		}
	}
}

func countCode(issues []map[string]any, code string) int {
	n := 0
	for _, is := range issues {
		if is["code"] == code {
			n++
		}
	}
	return n
}

// TestFileIssues_keptPastTheIssuesLimit: the issues about a file (here
// mixed_currencies, found at the end of the file) are in the result for
// a person to read first, also when the issues file stopped at its limit.
func TestFileIssues_keptPastTheIssuesLimit(t *testing.T) {
	t.Parallel()
	price := mustSchema(t, `{"fields":[{"name":"item","type":"integer"},{"name":"price","type":"number"}]}`)
	o, err := ParseOptions(ModeNormalize, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows, issues bytes.Buffer
	res, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: price, Options: o, MaxIssues: 2,
		Sources: []Source{csvSource(t, "amounts-mixed.csv")}}, Output{Rows: &rows, Issues: &issues})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IssuesTruncated || strings.Contains(issues.String(), "mixed_currencies") {
		t.Fatalf("the limit did not stop the issues file: %v %s", res.IssuesTruncated, issues.String())
	}
	if len(res.FileIssues) != 1 || res.FileIssues[0].Code != "mixed_currencies" || res.FileIssues[0].Field != "price" || res.FileIssues[0].Row != 0 {
		t.Fatalf("file issues %+v", res.FileIssues)
	}
}
