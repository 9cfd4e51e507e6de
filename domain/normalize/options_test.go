package normalize

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

// TestParseOptions_values: each option's accepted values, as the job's
// effective options read them.
func TestParseOptions_values(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc   string
		check func(o Options) bool
	}{
		{``, func(o Options) bool { return reflect.DeepEqual(o, Defaults(ModeNormalize)) }},
		{`{}`, func(o Options) bool { return reflect.DeepEqual(o, Defaults(ModeNormalize)) }},
		{`{"delimiter":";"}`, func(o Options) bool { return o.Delimiter == ";" }},
		{`{"delimiter":"\\t"}`, func(o Options) bool { return o.Delimiter == `\t` }},
		{`{"encoding":"windows-1251"}`, func(o Options) bool { return o.Encoding == "windows-1251" }},
		{`{"header_row":3}`, func(o Options) bool { return o.HeaderRow == 3 }},
		{`{"header_row":"none"}`, func(o Options) bool { return o.HeaderRow == HeaderNone }},
		{`{"quote":"'"}`, func(o Options) bool { return o.Quote == "'" }},
		{`{"escape":"\\"}`, func(o Options) bool { return o.Escape == `\` }},
		{`{"skip_rows":2}`, func(o Options) bool { return o.SkipRows == 2 }},
		{`{"sheet":2}`, func(o Options) bool { return o.Sheet == "2" }},
		{`{"sheet":"Data"}`, func(o Options) bool { return o.Sheet == "Data" }},
		{`{"mapping":{"E-mail":"email"}}`, func(o Options) bool { return o.Mapping["E-mail"] == "email" && len(o.Mapping) == 1 }},
		{`{"mapping":null}`, func(o Options) bool { return o.Mapping != nil && len(o.Mapping) == 0 }},
		{`{"trim":false}`, func(o Options) bool { return !o.Trim }},
		{`{"date_order":"DMY"}`, func(o Options) bool { return o.DateOrder == "DMY" }},
		{`{"phone_region":"gb"}`, func(o Options) bool { return o.PhoneRegion == "GB" }},
		{`{"on_error":"fail_job"}`, func(o Options) bool { return o.OnError == "fail_job" }},
		{`{"max_errors":0}`, func(o Options) bool { return o.MaxErrors == 0 }},
		{`{"max_errors":5}`, func(o Options) bool { return o.MaxErrors == 5 }},
		{`{"keep_unmapped":true,"dedupe":true}`, func(o Options) bool { return o.KeepUnmapped && o.Dedupe }},
		{`{"sample_rows":1000000}`, func(o Options) bool { return o.SampleRows == 1_000_000 }},
		{`{"decimal":","}`, func(o Options) bool { return o.Decimal == "," }},
		{`{"ragged_rows":"reject"}`, func(o Options) bool { return o.RaggedRows == raggedReject }},
		{`{"columns":{"Born":{"date_order":"MDY","decimal":",","evidence":{"day_first":3}}}}`, func(o Options) bool {
			return reflect.DeepEqual(o.Columns, map[string]ColumnOptions{"Born": {DateOrder: "MDY", Decimal: ","}})
		}},
	} {
		o, err := ParseOptions(ModeNormalize, []byte(c.doc))
		if err != nil || !c.check(o) {
			t.Errorf("%s: %+v, %v", c.doc, o, err)
		}
	}
}

// TestParseOptions_problems: every problem is named by its option, in
// the options' alphabetical order.
func TestParseOptions_problems(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc  string
		want []string
	}{
		{`[]`, []string{"options: must be a JSON object"}},
		{`{"delimiter":";;"}`, []string{`options.delimiter: must be one ASCII character, "\t" or "auto"`}},
		{`{"delimiter":1}`, []string{"options.delimiter: has the wrong type"}},
		{`{"encoding":"klingon"}`, []string{"options.encoding: must be auto or an IANA encoding name such as utf-8, windows-1251, iso-8859-7, koi8-r or shift_jis"}},
		{`{"header_row":10001}`, []string{`options.header_row: must be 1 to 10000, "none" (no header row) or 0 (detect)`}},
		{`{"header_row":-1}`, []string{`options.header_row: must be 1 to 10000, "none" (no header row) or 0 (detect)`}},
		{`{"header_row":"first"}`, []string{"options.header_row: has the wrong type"}},
		{`{"quote":"*"}`, []string{`options.quote: must be auto, "\"", "'" or none (quoting off)`}},
		{`{"escape":"/"}`, []string{`options.escape: must be auto, "\\" (backslash escapes inside quotes) or none (quotes are doubled)`}},
		{`{"skip_rows":-1}`, []string{"options.skip_rows: must be 0 or more"}},
		{`{"sheet":true}`, []string{"options.sheet: has the wrong type"}},
		{`{"mapping":["a"]}`, []string{"options.mapping: has the wrong type"}},
		{`{"trim":"yes"}`, []string{"options.trim: has the wrong type"}},
		{`{"date_order":"DDMMYY"}`, []string{"options.date_order: must be auto, DMY, MDY or YMD"}},
		{`{"phone_region":"XX"}`, []string{"options.phone_region: must be an ISO 3166-1 alpha-2 region such as US or GB"}},
		{`{"phone_region":44}`, []string{"options.phone_region: has the wrong type"}},
		{`{"on_error":"ignore"}`, []string{"options.on_error: must be skip_row, fail_job or null_value"}},
		{`{"max_errors":-1}`, []string{"options.max_errors: must be 0 or more (0: no limit)"}},
		{`{"max_errors":1.5}`, []string{"options.max_errors: has the wrong type"}},
		{`{"keep_unmapped":1,"dedupe":"no"}`, []string{"options.dedupe: has the wrong type", "options.keep_unmapped: has the wrong type"}},
		{`{"sample_rows":0}`, []string{"options.sample_rows: must be 1 to 1000000"}},
		{`{"decimal":";"}`, []string{`options.decimal: must be auto, "." or ","`}},
		{`{"ragged_rows":"drop"}`, []string{"options.ragged_rows: must be pad or reject"}},
		{`{"columns":[]}`, []string{"options.columns: has the wrong type"}},
		{`{"columns":{"a":{"decimal":"x","colour":"red"}}}`, []string{
			`options.columns.a.colour: unknown column option`, `options.columns.a.decimal: must be "." or ","`}},
		{`{"zebra":1,"quote":"*","alpha":true}`, []string{
			"options.alpha: unknown option", `options.quote: must be auto, "\"", "'" or none (quoting off)`, "options.zebra: unknown option"}},
	} {
		_, err := ParseOptions(ModeNormalize, []byte(c.doc))
		var got []string
		if e, ok := err.(*domain.Error); ok && e.Code == domain.CodeInvalidRequest {
			for _, f := range e.Fields {
				got = append(got, f.Field+": "+f.Message)
			}
		}
		if len(c.want) > 1 && strings.HasPrefix(c.doc, `{"columns"`) {
			slices.Sort(got) // a column's options come in map order
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q (%v)", c.doc, got, c.want, err)
		}
	}
}

// TestParseOptions_reviewAndValueMaps: the options that depend on the
// mode, and their problems.
func TestParseOptions_reviewAndValueMaps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode Mode
		doc  string
		want []string
		ok   func(o Options) bool
	}{
		{ModeNormalize, `{"review":true}`, nil, func(o Options) bool { return o.Review }},
		{ModeNormalize, `{"review":"yes"}`, []string{"options.review: has the wrong type"}, nil},
		{ModeInfer, `{"review":true}`, []string{"options.review: needs a target schema to review a mapping against: use mode normalize or validate"}, nil},
		{ModeNormalize, `{"value_map":{"country":{"UK":"GB"}}}`, nil, func(o Options) bool { return o.ValueMap["country"]["UK"] == "GB" }},
		{ModeNormalize, `{"value_map":[]}`, []string{"options.value_map: has the wrong type"}, nil},
		{ModeNormalize, `{"value_map":{"country":{"UK":1}}}`, []string{"options.value_map: has the wrong type"}, nil},
		{ModeInfer, `{"value_map":{"country":{"UK":"GB"}}}`, []string{"options.value_map: applies to the fields of a target schema: use mode normalize or validate"}, nil},
		{ModeNormalize, `{"value_map_case_insensitive":true}`, nil, func(o Options) bool { return o.ValueMapCaseInsensitive }},
		{ModeNormalize, `{"value_map_case_insensitive":"x"}`, []string{"options.value_map_case_insensitive: has the wrong type"}, nil},
	} {
		o, err := ParseOptions(c.mode, []byte(c.doc))
		var got []string
		if e, isCoded := err.(*domain.Error); isCoded {
			for _, f := range e.Fields {
				got = append(got, f.Field+": "+f.Message)
			}
		}
		if !reflect.DeepEqual(got, c.want) || (c.ok != nil && !c.ok(o)) {
			t.Errorf("%s %s: %+v, %q; want %q", c.mode, c.doc, o, got, c.want)
		}
	}
}
