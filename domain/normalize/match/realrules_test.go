package match

import (
	"slices"
	"testing"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
)

// mapOf runs the matcher on a header and its columns' values and returns
// each column's field ("" when unmapped).
func mapOf(t *testing.T, schemaDoc string, header []string, values [][]string) []string {
	t.Helper()
	s := mustSchema(t, schemaDoc)
	to, _, _ := Columns(Input{Header: header, Schema: s, Values: func() [][]string { return values }})
	out := make([]string, len(to))
	for c, f := range to {
		if f >= 0 {
			out[c] = s.Fields[f].Name
		}
	}
	return out
}

// TestMatch_isoWeeks: a column of ISO 8601 weeks is the schema's only
// week field, even under a header that says date; a column of dates is
// not.
func TestMatch_isoWeeks(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2020-W11", "2021W01", "2020-W53-7"} {
		if !isoWeek(v) {
			t.Errorf("%s is no ISO week", v)
		}
	}
	for _, v := range []string{"2020-W54", "2020-11", "W11", "2020-W1", "2020-W11-8"} {
		if isoWeek(v) {
			t.Errorf("%s read as an ISO week", v)
		}
	}
	doc := `{"fields":[{"name":"week"},{"name":"deaths","type":"integer"}]}`
	weeks := []string{"2020-W10", "2020-W11", "2020-W12", "2020-W13"}
	if got := mapOf(t, doc, []string{"Stichtag", "Todesfälle"}, [][]string{weeks, {"1", "2", "3", "4"}}); got[0] != "week" || got[1] != "deaths" {
		t.Errorf("weeks under a date header: %q", got)
	}
	dates := []string{"2020-03-01", "2020-03-08", "2020-03-15", "2020-03-22"}
	if got := mapOf(t, doc, []string{"Stichtag", "Todesfälle"}, [][]string{dates, {"1", "2", "3", "4"}}); got[0] != "" {
		t.Errorf("dates mapped to a week field: %q", got)
	}
}

// TestMatch_yearHeaders: a header that is a year names the one field
// whose name holds that year; two fields holding it leave it to a person.
func TestMatch_yearHeaders(t *testing.T) {
	t.Parallel()
	nums := [][]string{{"12.5", "13.1", "9.8"}, {"14.0", "15.2", "10.1"}}
	got := mapOf(t, `{"fields":[{"name":"income_2010","type":"number"},{"name":"income_2020","type":"number"}]}`, []string{"2020", "2010"}, nums)
	if got[0] != "income_2020" || got[1] != "income_2010" {
		t.Errorf("year headers: %q", got)
	}
	got = mapOf(t, `{"fields":[{"name":"income_2020","type":"number"},{"name":"tax_2020","type":"number"}]}`, []string{"2020", "x"}, nums)
	if got[0] != "" {
		t.Errorf("a year two fields hold mapped to %q", got[0])
	}
}

// TestMatch_distinctiveWord: a header naming the one word that tells a
// field from the schema's others leads to it, mapped when the values
// confirm; a word several fields share does not.
func TestMatch_distinctiveWord(t *testing.T) {
	t.Parallel()
	doc := `{"fields":[{"name":"public_beds","type":"integer"},{"name":"private_beds","type":"integer"},{"name":"region"}]}`
	ints := [][]string{{"572", "113", "86"}, {"162", "22", "7"}, {"Galicia", "Aragón", "Murcia"}}
	got := mapOf(t, doc, []string{"Privadas", "Públicas", "CCAA"}, ints)
	if got[0] != "private_beds" || got[1] != "public_beds" || got[2] != "region" {
		t.Errorf("distinctive words: %q", got)
	}
	// camas (beds) is a word of both bed fields: a person decides.
	got = mapOf(t, doc, []string{"camas", "CCAA"}, [][]string{ints[0], ints[2]})
	if got[0] != "" {
		t.Errorf("a shared word mapped to %q", got[0])
	}
}

// TestMatch_shortAbbreviationCompounds: NBCOM-style headers read as the
// abbreviations they are made of; a short word that is no such compound
// is not split.
func TestMatch_shortAbbreviationCompounds(t *testing.T) {
	t.Parallel()
	v := vocab()
	ids := func(h string) []string {
		var out []string
		for _, tm := range v.terms(h) {
			out = append(out, tm.id)
		}
		return out
	}
	if got := ids("CODKT"); !slices.Equal(got, []string{"code", "canton"}) {
		t.Errorf("CODKT: %v", got)
	}
	if got := ids("CODREG"); !slices.Equal(got, []string{"code", "region"}) {
		t.Errorf("CODREG: %v", got)
	}
	if got := ids("stato"); len(got) != 1 || got[0] != "=stato" {
		t.Errorf("stato: %v", got)
	}
}

// TestMatch_bareNameAndGroupedNumbers: a header that is a field's name
// without its light words names it; 4.500.000 is a number, not a phone;
// a spelling like a field's over values that do not fit is not mapped.
func TestMatch_bareNameAndGroupedNumbers(t *testing.T) {
	t.Parallel()
	got := mapOf(t, `{"fields":[{"name":"k_value","type":"number"},{"name":"rate","type":"number"}]}`, []string{"K"}, [][]string{{"0.64", "0.7", "1.1"}})
	if got[0] != "k_value" {
		t.Errorf("K: %q", got)
	}
	if k := classify("4.500.000", &coerce.Scratch{}); !slices.Contains(k, kindInteger) || slices.Contains(k, kindPhone) {
		t.Errorf("4.500.000 reads as %v", k)
	}
	got = mapOf(t, `{"fields":[{"name":"contract_number","type":"string","constraints":{"pattern":"[0-9]{6}[A-Z]{2}[0-9]{4}"}}]}`,
		[]string{"Contract nunber"}, [][]string{{"Ministry of Health", "Ministry of Transport", "City of Rome"}})
	if got[0] != "" {
		t.Errorf("a spelling over unfitting values mapped to %q", got[0])
	}
}
