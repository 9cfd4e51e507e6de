package normalize

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
)

const germanSchema = `{"fields":[
	{"name":"name","type":"string","constraints":{"required":true}},
	{"name":"active","type":"boolean"},
	{"name":"joined","type":"date"}]}`

func TestRun_valueMapReplacesBeforeCoercion(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, germanSchema)
	rows := [][]string{{"name", "active", "joined"}, {"Anna", "ja", "1. März 2024"}, {"Bernd", " nein ", "2024-01-02"}, {"Clara", "JA", "2024-01-03"}, {"Dora", "vielleicht", "?"}}
	exact := execute(t, ModeNormalize, s, `{"value_map":{"active":{"ja":"true","nein":"false"},"joined":{"1. März 2024":"2024-03-01","?":""}}}`, source("", rows...))
	if exact.err != nil {
		t.Fatal(exact.err)
	}
	// "JA" differs in case and stays invalid; "?" becomes a missing value.
	if got := fmt.Sprint(exact.rows); got != "[map[active:true joined:2024-03-01 name:Anna] map[active:false joined:2024-01-02 name:Bernd]]" {
		t.Fatalf("rows %s", got)
	}
	if len(exact.issues) != 2 || exact.issues[0]["value"] != "JA" || exact.issues[1]["value"] != "vielleicht" {
		t.Fatalf("issues %v", exact.issues)
	}
	folded := execute(t, ModeNormalize, s, `{"value_map":{"active":{"Ja":"true","NEIN":"false"}},"value_map_case_insensitive":true}`, source("", rows...))
	if folded.res.RowCount != 2 || folded.rows[1]["name"] != "Clara" || folded.rows[1]["active"] != true {
		t.Fatalf("case-insensitive rows %v issues %v", folded.rows, folded.issues)
	}
	// The issue keeps the value as the file had it.
	untrimmed := execute(t, ModeNormalize, s, `{"trim":false,"value_map":{"active":{"nein":"false"}}}`, source("", rows...))
	for _, is := range untrimmed.issues {
		if is["row"] == 2.0 && is["value"] != " nein " {
			t.Fatalf("issue %v", is)
		}
	}
	if untrimmed.res.RowCount != 0 {
		t.Fatalf("without trim, \" nein \" is not \"nein\": %v", untrimmed.rows)
	}
	validated := execute(t, ModeValidate, s, `{"value_map":{"active":{"ja":"true","nein":"false","JA":"true","vielleicht":"false"},"joined":{"1. März 2024":"2024-03-01","?":""}}}`, source("", rows...))
	if validated.res.RowCount != 4 {
		t.Fatalf("validate mode: %v %v", validated.rows, validated.issues)
	}
}

func TestParseOptions_reviewAndValueMap(t *testing.T) {
	t.Parallel()
	o, err := ParseOptions(ModeNormalize, []byte(`{"review":true,"value_map":{"active":{"ja":"true"}},"value_map_case_insensitive":true,"mapping":{"Notes":null,"E-mail":"email"}}`))
	if err != nil || !o.Review || o.ValueMap["active"]["ja"] != "true" || !o.ValueMapCaseInsensitive || o.Mapping["Notes"] != "" || o.Mapping["E-mail"] != "email" {
		t.Fatalf("%+v %v", o, err)
	}
	var doc map[string]json.RawMessage
	_ = json.Unmarshal(o.JSON(), &doc)
	if string(doc["mapping"]) != `{"E-mail":"email","Notes":null}` || string(doc["value_map"]) != `{"active":{"ja":"true"}}` {
		t.Fatalf("options document %s", o.JSON())
	}
	if again, err := ParseOptions(ModeNormalize, o.JSON()); err != nil || fmt.Sprint(again) != fmt.Sprint(o) {
		t.Fatalf("round trip %+v %v", again, err)
	}
	many := map[string]string{}
	for i := range MaxValueMapEntries + 1 {
		many[fmt.Sprint(i)] = "x"
	}
	tooMany, _ := json.Marshal(map[string]any{"value_map": map[string]any{"a": many}})
	cases := map[string]struct {
		mode Mode
		doc  string
		path string
	}{
		"review in infer":          {ModeInfer, `{"review":true}`, "options.review"},
		"value_map in infer":       {ModeInfer, `{"value_map":{"a":{"x":"y"}}}`, "options.value_map"},
		"value_map not an object":  {ModeNormalize, `{"value_map":{"a":"x"}}`, "options.value_map"},
		"replacement not a string": {ModeNormalize, `{"value_map":{"a":{"x":1}}}`, "options.value_map"},
		"review not a boolean":     {ModeNormalize, `{"review":"yes"}`, "options.review"},
		"too many replacements":    {ModeNormalize, string(tooMany), "options.value_map"},
		"ambiguous keys":           {ModeNormalize, `{"value_map":{"a":{"ja":"true","JA":"false"}},"value_map_case_insensitive":true}`, "options.value_map.a"},
		"ambiguous after trimming": {ModeNormalize, `{"value_map":{"a":{"ja":"true"," ja":"false"}}}`, "options.value_map.a"},
	}
	for name, c := range cases {
		_, err := ParseOptions(c.mode, []byte(c.doc))
		var coded *domain.Error
		if !asCoded(err, &coded) || coded.Code != "invalid_request" || len(coded.Fields) == 0 || coded.Fields[0].Field != c.path {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The same replacement under two spellings is not ambiguous.
	if _, err := ParseOptions(ModeNormalize, []byte(`{"value_map":{"a":{"ja":"true","JA":"true"}},"value_map_case_insensitive":true}`)); err != nil {
		t.Fatal(err)
	}
	s := mustSchema(t, germanSchema)
	o, _ = ParseOptions(ModeNormalize, []byte(`{"value_map":{"active":{"ja":"true"},"colour":{"x":"y"}}}`))
	var coded *domain.Error
	if err := o.CheckFields(s); !asCoded(err, &coded) || len(coded.Fields) != 1 || coded.Fields[0].Field != "options.value_map.colour" {
		t.Fatalf("unknown field: %v", err)
	}
}

func asCoded(err error, coded **domain.Error) bool {
	if err == nil {
		return false
	}
	e, ok := err.(*domain.Error)
	*coded = e
	return ok
}

func reviewOf(t *testing.T, schemaDoc, opts string, sources ...Source) review.Review {
	t.Helper()
	o, err := ParseOptions(ModeNormalize, []byte(opts))
	if err != nil {
		t.Fatal(err)
	}
	samples, err := ReadSamples(context.Background(), sources)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := RunReview(context.Background(), ReviewInput{Mode: ModeNormalize, Schema: mustSchema(t, schemaDoc), Options: o, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func TestRunReview(t *testing.T) {
	t.Parallel()
	t.Run("the_proposal", reviewProposal)
	t.Run("the_preview_and_issue_counts", reviewPreview)
	t.Run("a_persons_choices", reviewChoices)
}

const reviewPeople = `{"fields":[
	{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email","aliases":["courriel"]},
	{"name":"name","type":"string"},
	{"name":"phone","type":"string"}]}`

var reviewRows = [][]string{{"ID", "Emial", "Nickname", "Notes"}, {"1", "ann@x.io", "Ann", "n1"}, {"2", "bob@", "Bob", "n2"}, {"1", "cy@x.io", "Cy", ""}, {"x", "dee@x.io", "Dee", "n4"}}

// reviewColumn is the review's column of that header.
func reviewColumn(t *testing.T, rev review.Review, name string) review.Column {
	t.Helper()
	for _, c := range rev.Columns {
		if c.SourceColumn == name {
			return c
		}
	}
	t.Fatalf("no column %s in %+v", name, rev.Columns)
	return review.Column{}
}

func reviewProposal(t *testing.T) {
	rev := reviewOf(t, reviewPeople, "", source("", reviewRows...))
	if c := reviewColumn(t, rev, "ID"); *c.Field != "id" || *c.Method != match.MethodNormalized || fmt.Sprint(c.Values) != "[1 2 x]" {
		t.Fatalf("ID %+v", c)
	}
	if c := reviewColumn(t, rev, "Emial"); *c.Field != "email" || *c.Method != match.MethodFuzzy || *c.Confidence >= 1 {
		t.Fatalf("Emial %+v", c)
	}
	if c := reviewColumn(t, rev, "Nickname"); c.Field != nil || len(c.Alternatives) == 0 || c.Alternatives[0].Field != "name" || c.Alternatives[0].Method != match.MethodSynonym {
		t.Fatalf("Nickname %+v", c)
	}
	if c := reviewColumn(t, rev, "Notes"); c.Field != nil || c.Ignored || fmt.Sprint(c.Values) != "[n1 n2 n4]" {
		t.Fatalf("Notes %+v", c)
	}
	if fmt.Sprint(rev.UnmappedFields) != "[name phone]" || len(rev.Blocking) != 0 {
		t.Fatalf("unmapped %v blocking %+v", rev.UnmappedFields, rev.Blocking)
	}
	if got := fmt.Sprintf("%+v", rev.Mapping()); !strings.Contains(got, `{SourceFile: SourceColumn:Emial Field:email Method:fuzzy Confidence:0.9`) ||
		!strings.Contains(got, `{SourceFile: SourceColumn:Notes Field: Method: Confidence:0 Evidence:<nil>}`) {
		t.Fatalf("mapping %s", got)
	}
	for _, e := range rev.Mapping() {
		if e.SourceColumn == "Emial" && (e.Evidence == nil || *e.Evidence != match.Evidence{Header: 0.95, Values: 1, Matched: "email"}) {
			t.Fatalf("the evidence of Emial: %+v", e.Evidence)
		}
	}
	if got := fmt.Sprint(rev.Confirmed()); got != "map[Emial:email ID:id Nickname: Notes:]" {
		t.Fatalf("confirmed %s", got)
	}
}

// reviewPreview: every record is previewed, rejected ones too, with their
// issues, which are counted.
func reviewPreview(t *testing.T) {
	rev := reviewOf(t, reviewPeople, "", source("", reviewRows...))
	if rev.Sample != (review.Summary{Records: 4, RowsValid: 1, RowsRejected: 3, Complete: true}) || len(rev.Preview) != 4 {
		t.Fatalf("sample %+v preview %d", rev.Sample, len(rev.Preview))
	}
	p := rev.Preview
	if !p[0].Valid || string(p[0].Values) != `{"id":1,"email":"ann@x.io","name":null,"phone":null}` || len(p[0].Issues) != 0 {
		t.Fatalf("row 1 %+v %s", p[0], p[0].Values)
	}
	if p[1].Valid || string(p[1].Values) != `{"id":2,"email":null,"name":null,"phone":null}` || len(p[1].Issues) != 1 || p[1].Issues[0].Code != "invalid_email" ||
		*p[1].Issues[0].Value != "bob@" || *p[1].Issues[0].Row != 2 {
		t.Fatalf("row 2 %+v %s", p[1], p[1].Values)
	}
	if p[2].Valid || p[2].Issues[0].Code != "not_unique" {
		t.Fatalf("row 3 %+v", p[2])
	}
	if p[3].Valid || string(p[3].Values) != `{"id":null,"email":"dee@x.io","name":null,"phone":null}` || p[3].Issues[0].Code != "invalid_integer" {
		t.Fatalf("row 4 %+v %s", p[3], p[3].Values)
	}
	var counts []string
	for _, c := range rev.IssueCounts {
		f := "-"
		if c.Field != nil {
			f = *c.Field
		}
		counts = append(counts, fmt.Sprintf("%s/%s/%s=%d", f, c.Severity, c.Code, c.Count))
	}
	if got := strings.Join(counts, " "); got != "id/error/invalid_integer=1 id/error/not_unique=1 email/error/invalid_email=1 email/warning/fuzzy_mapping=1 name/warning/unmapped_field=1 phone/warning/unmapped_field=1" {
		t.Fatalf("counts %s", got)
	}
}

// reviewChoices: Nickname → name, Emial ignored. A required field left
// unmapped blocks, and the preview still shows the rest; with nothing
// mapped, the file blocks and has no preview.
func reviewChoices(t *testing.T) {
	changed := reviewOf(t, reviewPeople, `{"mapping":{"Nickname":"name","Emial":null,"ID":null}}`, source("", reviewRows...))
	var chosen []string
	for _, c := range changed.Columns {
		f := "-"
		if c.Field != nil {
			f = *c.Field + "/" + *c.Method
		}
		chosen = append(chosen, fmt.Sprintf("%s:%s:%v", c.SourceColumn, f, c.Ignored))
	}
	if got := strings.Join(chosen, " "); got != "ID:-:true Emial:-:true Nickname:name/explicit:false Notes:-:false" {
		t.Fatalf("columns %s", got)
	}
	if len(changed.Blocking) != 1 || changed.Blocking[0].Code != "required_field_unmapped" || *changed.Blocking[0].Field != "id" {
		t.Fatalf("blocking %+v", changed.Blocking)
	}
	if err := changed.Blocked(); domain.CodeOf(err) != "required_field_unmapped" {
		t.Fatalf("blocked %v", err)
	}
	if len(changed.Preview) != 4 || string(changed.Preview[0].Values) != `{"id":null,"email":null,"name":"Ann","phone":null}` || !changed.Preview[0].Valid {
		t.Fatalf("preview %s", changed.Preview[0].Values)
	}
	none := reviewOf(t, reviewPeople, `{"mapping":{"Nickname":null,"Emial":null,"ID":null}}`, source("", reviewRows...))
	if len(none.Blocking) != 2 || none.Blocking[1].Code != "no_columns_mapped" || len(none.Preview) != 0 {
		t.Fatalf("nothing mapped: %+v", none)
	}
}

// TestSamples_roundTrip: a stored sample gives the review the file gave,
// and a sample stops at SampleRecords.
func TestSamples_roundTrip(t *testing.T) {
	t.Parallel()
	rows := [][]string{{"id", "email"}}
	for i := range SampleRecords + 10 {
		rows = append(rows, []string{fmt.Sprint(i + 1), fmt.Sprintf("u%d@x.io", i)})
	}
	samples, err := ReadSamples(context.Background(), []Source{source("file_1", rows...)})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples[0].Records) != SampleRecords || samples[0].Complete || samples[0].FileID != "file_1" {
		t.Fatalf("%d records, complete %v", len(samples[0].Records), samples[0].Complete)
	}
	b, err := MarshalSamples(samples)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalSamples(b)
	if err != nil {
		t.Fatal(err)
	}
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"},{"name":"email","format":"email"}]}`)
	in := ReviewInput{Mode: ModeNormalize, Schema: s, Options: Defaults(ModeNormalize)}
	in.Samples = samples
	first, err := RunReview(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	in.Samples = back
	second, err := RunReview(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) || len(first.Preview) != PreviewRows || first.Sample.Records != SampleRecords || first.Sample.Complete {
		t.Fatalf("replayed review differs or is wrong:\n%+v\n%+v", first.Sample, second.Sample)
	}
	if *first.Preview[0].SourceFile != "file_1" || first.Preview[49].Row != 50 {
		t.Fatalf("preview %+v", first.Preview[49])
	}
}

// TestSamples_budget: a sample stops at SampleBytes of text, and the
// samples of all files together at SampleBytesTotal (at least a record a
// file).
func TestSamples_budget(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	file := func(id string) Source {
		rows := [][]string{{"a"}}
		for range 12 {
			rows = append(rows, []string{big})
		}
		return source(id, rows...)
	}
	samples, err := ReadSamples(context.Background(), []Source{file("f1"), file("f2"), file("f3"), file("f4"), file("f5")})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, s := range samples {
		got = append(got, len(s.Records))
	}
	if fmt.Sprint(got) != "[8 8 8 8 1]" || samples[0].Complete {
		t.Fatalf("records per file %v", got)
	}
}

// TestRunReview_columnWarnings: each column carries the warnings the run
// would give of its mapping: fuzzy_mapping for a likeness, and
// ambiguous_mapping on every column that names a field as well as
// another (none mapped, the field proposed first for each).
func TestRunReview_columnWarnings(t *testing.T) {
	t.Parallel()
	rev := reviewOf(t, `{"fields":[{"name":"region_code"},{"name":"email","type":"string","format":"email"},{"name":"deaths","type":"integer"}]}`, "",
		source("", []string{"codice_regione", "cod_regione", "Emial", "deceduti"}, []string{"13", "13", "ann@x.io", "4"}, []string{"14", "14", "bob@x.io", "5"}, []string{"15", "15", "cy@x.io", "7"}))
	codes := func(c review.Column) string {
		var out []string
		for _, w := range c.Warnings {
			out = append(out, w.Code+": "+w.Message)
		}
		return strings.Join(out, " | ")
	}
	for _, h := range []string{"codice_regione", "cod_regione"} {
		c := reviewColumn(t, rev, h)
		if c.Field != nil || len(c.Alternatives) == 0 || c.Alternatives[0].Field != "region_code" ||
			!strings.HasPrefix(codes(c), "ambiguous_mapping: ") || !strings.Contains(codes(c), `["codice_regione" "cod_regione"]`) {
			t.Errorf("%s: field %v, alternatives %+v, warnings %s", h, c.Field, c.Alternatives, codes(c))
		}
	}
	if c := reviewColumn(t, rev, "Emial"); c.Field == nil || *c.Field != "email" || !strings.HasPrefix(codes(c), "fuzzy_mapping: ") {
		t.Errorf("Emial: warnings %s", codes(c))
	}
	if c := reviewColumn(t, rev, "deceduti"); c.Warnings == nil || len(c.Warnings) != 0 {
		t.Errorf("deceduti: warnings %#v", c.Warnings)
	}
}
