// Package normalize is the engine that turns a table into rows that
// conform to a target schema: header → mapping → per-column coercion and
// constraints → valid rows and issues, streaming, in bounded memory. It
// does no I/O of its own: it reads table.Readers and writes io.Writers.
package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/normalize/mode"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Mode is what a job does (API.md §7): the engine's name for mode.Mode,
// which a job carries without importing the engine.
type Mode = mode.Mode

// The modes.
const (
	ModeNormalize = mode.Normalize
	ModeValidate  = mode.Validate
	ModeInfer     = mode.Infer
)

// ParseMode validates a mode; "" is normalize.
func ParseMode(s string) (Mode, error) { return mode.Parse(s) }

// Options are a job's options with their effective values.
type Options struct {
	Delimiter    string     `json:"delimiter"`
	Encoding     string     `json:"encoding"`
	HeaderRow    HeaderRow  `json:"header_row"`
	SkipRows     int        `json:"skip_rows"`
	FooterRows   FooterRows `json:"footer_rows"`
	Quote        string     `json:"quote"`
	Escape       string     `json:"escape"`
	Comment      string     `json:"comment"`
	Sheet        string     `json:"sheet"`
	Mapping      Mapping    `json:"mapping"`
	Trim         bool       `json:"trim"`
	DateOrder    string     `json:"date_order"`
	PhoneRegion  string     `json:"phone_region"`
	OnError      string     `json:"on_error"`
	MaxErrors    int64      `json:"max_errors"`
	KeepUnmapped bool       `json:"keep_unmapped"`
	Dedupe       bool       `json:"dedupe"`
	SampleRows   int        `json:"sample_rows"`
	RaggedRows   string     `json:"ragged_rows"`
	Decimal      string     `json:"decimal"`
	// Columns are per source column (by header) settings that win over
	// the job's: the shape the job's result.detected reports them in.
	Columns map[string]ColumnOptions `json:"columns"`
	// Review stops the job after its sample until a person confirms the
	// column mapping (review.go).
	Review bool `json:"review"`
	// ValueMap replaces raw values of a field before they are coerced:
	// field → raw value → replacement (values.go).
	ValueMap map[string]map[string]string `json:"value_map"`
	// ValueMapCaseInsensitive matches ValueMap's raw values ignoring case.
	ValueMapCaseInsensitive bool `json:"value_map_case_insensitive"`
	// BooleanLocale adds a language's yes and no words to the boolean
	// fields' (booleans_locale.go).
	BooleanLocale string `json:"boolean_locale,omitempty"`
	// DestinationIDs are the destinations the job's rows are delivered
	// to once it succeeds (application/destinations); the ids are checked
	// against the organization's when the job is created.
	DestinationIDs []string `json:"destination_ids,omitempty"`
}

// ColumnOptions are one source column's settings.
type ColumnOptions struct {
	DateOrder string `json:"date_order,omitempty"` // DMY, MDY, YMD
	Decimal   string `json:"decimal,omitempty"`    // "." or ","
}

const decimalAuto = coerce.DecimalAuto

// ragged_rows: what a record with more or fewer cells than the header is.
const (
	raggedPad    = "pad"    // short records padded, empty extra cells dropped: a warning
	raggedReject = "reject" // any ragged record is an error
)

// Defaults returns the options of a mode before the client's.
func Defaults(Mode) Options {
	return Options{Delimiter: "auto", Encoding: "auto", Quote: "auto", Escape: "auto", Comment: "auto", Mapping: Mapping{}, Trim: true, DateOrder: "auto",
		PhoneRegion: "US", OnError: "skip_row", SampleRows: 10000, RaggedRows: raggedPad, Decimal: decimalAuto, Columns: map[string]ColumnOptions{},
		ValueMap: map[string]map[string]string{}}
}

// ParseOptions applies a client's options document (may be empty) over
// the mode's defaults. Unknown options and bad values are invalid_request
// errors naming the option.
func ParseOptions(m Mode, data []byte) (Options, error) {
	o := Defaults(m)
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return o, optionErr("options", "must be a JSON object")
	}
	var errs []domain.FieldError
	add := func(k, msg string) { errs = append(errs, domain.FieldError{Field: "options." + k, Message: msg}) }
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rule, known := optionRules[k]
		switch {
		case !known:
			add(k, "unknown option")
		case rule.parse(&o, m, raw[k], add) != nil:
			add(k, "has the wrong type")
		case rule.valid != nil && !rule.valid(&o, m):
			add(k, rule.want)
		}
	}
	checkValueMapKeys(o, add)
	if _, given := raw["comment"]; given && len(o.Comment) == 1 && (o.Comment == o.Delimiter || o.Comment == o.Quote) {
		add("comment", optionRules["comment"].want) // checked once the delimiter and the quote are read
	}
	if len(errs) > 0 {
		return o, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The options are not valid; see errors.", Fields: errs}
	}
	return o, nil
}

// optionRule reads one option: parse sets it from its JSON value (an
// error means a value of the wrong type; problem reports a problem inside
// the value, by its path under the options), then valid, when set, checks
// the value read in the job's mode, and want says what a valid one is.
type optionRule struct {
	parse func(o *Options, m Mode, v json.RawMessage, problem func(path, msg string)) error
	valid func(o *Options, m Mode) bool
	want  string
}

// optionRules are the options of API.md §7, by name.
var optionRules = map[string]optionRule{
	"delimiter": {parse: into(func(o *Options) *string { return &o.Delimiter }),
		valid: func(o *Options, _ Mode) bool {
			return o.Delimiter == "auto" || o.Delimiter == "\\t" || len(o.Delimiter) == 1
		},
		want: "must be one ASCII character, \"\\t\" or \"auto\""},
	"encoding": {parse: into(func(o *Options) *string { return &o.Encoding }),
		valid: func(o *Options, _ Mode) bool { return validEncoding(o.Encoding) },
		want:  "must be auto or an IANA encoding name such as utf-8, windows-1251, iso-8859-7, koi8-r or shift_jis"},
	"header_row": {parse: into(func(o *Options) *HeaderRow { return &o.HeaderRow }),
		valid: func(o *Options, _ Mode) bool { return o.HeaderRow >= HeaderNone && o.HeaderRow <= table.MaxHeaderRow },
		want:  fmt.Sprintf("must be 1 to %d, \"none\" (no header row) or 0 (detect)", table.MaxHeaderRow)},
	"footer_rows": {parse: into(func(o *Options) *FooterRows { return &o.FooterRows }),
		valid: func(o *Options, _ Mode) bool {
			return o.FooterRows >= FooterNone && o.FooterRows <= table.MaxFooterRows
		},
		want: fmt.Sprintf("must be auto (notes below the table are detected), none, or 1 to %d (the last records skipped)", table.MaxFooterRows)},
	"quote": {parse: into(func(o *Options) *string { return &o.Quote }),
		valid: choice(func(o *Options) string { return o.Quote }, "auto", `"`, "'", "none"),
		want:  `must be auto, "\"", "'" or none (quoting off)`},
	"escape": {parse: into(func(o *Options) *string { return &o.Escape }),
		valid: choice(func(o *Options) string { return o.Escape }, "auto", `\`, "none"),
		want:  `must be auto, "\\" (backslash escapes inside quotes) or none (quotes are doubled)`},
	"comment": {parse: into(func(o *Options) *string { return &o.Comment }),
		valid: validComment,
		want:  `must be auto (# when the file's first line starts with it), none, or one ASCII character other than a blank, the delimiter or the quote`},
	"skip_rows": {parse: into(func(o *Options) *int { return &o.SkipRows }),
		valid: func(o *Options, _ Mode) bool { return o.SkipRows >= 0 },
		want:  "must be 0 or more"},
	"sheet":   {parse: parseSheet},
	"mapping": {parse: parseMapping},
	"trim":    {parse: into(func(o *Options) *bool { return &o.Trim })},
	"date_order": {parse: into(func(o *Options) *string { return &o.DateOrder }),
		valid: choice(func(o *Options) string { return o.DateOrder }, "auto", "DMY", "MDY", "YMD"),
		want:  "must be auto, DMY, MDY or YMD"},
	"phone_region": {parse: parsePhoneRegion,
		valid: func(o *Options, _ Mode) bool { return coerce.ValidRegion(o.PhoneRegion) },
		want:  "must be an ISO 3166-1 alpha-2 region such as US or GB"},
	"on_error": {parse: into(func(o *Options) *string { return &o.OnError }),
		valid: choice(func(o *Options) string { return o.OnError }, "skip_row", "fail_job", "null_value"),
		want:  "must be skip_row, fail_job or null_value"},
	"max_errors": {parse: into(func(o *Options) *int64 { return &o.MaxErrors }),
		valid: func(o *Options, _ Mode) bool { return o.MaxErrors >= 0 },
		want:  "must be 0 or more (0: no limit)"},
	"keep_unmapped": {parse: into(func(o *Options) *bool { return &o.KeepUnmapped })},
	"dedupe":        {parse: into(func(o *Options) *bool { return &o.Dedupe })},
	"sample_rows": {parse: into(func(o *Options) *int { return &o.SampleRows }),
		valid: func(o *Options, _ Mode) bool { return o.SampleRows >= 1 && o.SampleRows <= 1_000_000 },
		want:  "must be 1 to 1000000"},
	"decimal": {parse: into(func(o *Options) *string { return &o.Decimal }),
		valid: choice(func(o *Options) string { return o.Decimal }, decimalAuto, ".", ","),
		want:  `must be auto, "." or ","`},
	"columns": {parse: func(o *Options, _ Mode, v json.RawMessage, problem func(string, string)) error {
		return parseColumns(v, o, problem)
	}},
	"review": {parse: into(func(o *Options) *bool { return &o.Review }),
		valid: func(o *Options, m Mode) bool { return !o.Review || m != ModeInfer },
		want:  "needs a target schema to review a mapping against: use mode normalize or validate"},
	"value_map": {parse: func(o *Options, m Mode, v json.RawMessage, problem func(string, string)) error {
		return parseValueMap(v, o, m, problem)
	}},
	"value_map_case_insensitive": {parse: into(func(o *Options) *bool { return &o.ValueMapCaseInsensitive })},
	"boolean_locale":             booleanLocaleRule,
	"destination_ids": {parse: into(func(o *Options) *[]string { return &o.DestinationIDs }),
		valid: func(o *Options, _ Mode) bool { return validDestinationIDs(o.DestinationIDs) },
		want:  "must be at most 10 distinct destination ids (dst_…)"},
	"ragged_rows": {parse: into(func(o *Options) *string { return &o.RaggedRows }),
		valid: choice(func(o *Options) string { return o.RaggedRows }, raggedPad, raggedReject),
		want:  "must be pad or reject"},
}

// validDestinationIDs accepts up to 10 distinct ids of destinations.
func validDestinationIDs(ids []string) bool {
	if len(ids) > 10 {
		return false
	}
	for i, s := range ids {
		if !strings.HasPrefix(s, "dst_") || len(s) > 64 || slices.Contains(ids[:i], s) {
			return false
		}
	}
	return true
}

// validComment accepts auto, none, or one printable ASCII character that
// is not a blank (ParseOptions checks it against the delimiter and quote).
func validComment(o *Options, _ Mode) bool {
	c := o.Comment
	return c == "auto" || c == "none" || len(c) == 1 && c[0] > ' ' && c[0] < 0x7f
}

// into parses an option by decoding its value into the field.
func into[T any](field func(o *Options) *T) func(*Options, Mode, json.RawMessage, func(string, string)) error {
	return func(o *Options, _ Mode, v json.RawMessage, _ func(string, string)) error {
		return json.Unmarshal(v, field(o))
	}
}

// choice accepts the field's value when it is one of allowed.
func choice(field func(o *Options) string, allowed ...string) func(*Options, Mode) bool {
	return func(o *Options, _ Mode) bool { return oneOf(field(o), allowed...) }
}

// parseSheet reads a sheet by name, or by number (as its name).
func parseSheet(o *Options, _ Mode, v json.RawMessage, _ func(string, string)) error {
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		o.Sheet = n.String()
		return nil
	}
	return json.Unmarshal(v, &o.Sheet)
}

// parseMapping reads source column → field; null is no mapping.
func parseMapping(o *Options, _ Mode, v json.RawMessage, _ func(string, string)) error {
	err := json.Unmarshal(v, &o.Mapping)
	if o.Mapping == nil {
		o.Mapping = Mapping{}
	}
	return err
}

// parsePhoneRegion reads a region in either case.
func parsePhoneRegion(o *Options, _ Mode, v json.RawMessage, _ func(string, string)) error {
	err := json.Unmarshal(v, &o.PhoneRegion)
	o.PhoneRegion = strings.ToUpper(o.PhoneRegion)
	return err
}

// parseColumns reads options.columns: {"Header": {"date_order": "DMY",
// "decimal": ","}}. An "evidence" object, as result.detected carries it,
// is accepted and ignored, so detected columns can be passed back as they are.
func parseColumns(v json.RawMessage, o *Options, add func(k, msg string)) error {
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil {
		return err
	}
	o.Columns = map[string]ColumnOptions{}
	for col, keys := range raw {
		var co ColumnOptions
		for k, kv := range keys {
			path := "columns." + col + "." + k
			switch k {
			case "date_order":
				if json.Unmarshal(kv, &co.DateOrder) != nil || !oneOf(co.DateOrder, "DMY", "MDY", "YMD") {
					add(path, "must be DMY, MDY or YMD")
				}
			case "decimal":
				if json.Unmarshal(kv, &co.Decimal) != nil || !oneOf(co.Decimal, ".", ",") {
					add(path, `must be "." or ","`)
				}
			case "evidence":
			default:
				add(path, "unknown column option")
			}
		}
		o.Columns[col] = co
	}
	return nil
}

func optionErr(field, msg string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The options are not valid; see errors.",
		Fields: []domain.FieldError{{Field: field, Message: msg}}}
}

func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

func validEncoding(s string) bool {
	if strings.EqualFold(s, "auto") {
		return true
	}
	_, _, ok := table.LookupEncoding(s)
	return ok
}

// HeaderRow is the header_row option: 0 detects, n ≥ 1 is the header's
// row, HeaderNone ("none" in JSON) reads a file without a header row.
type HeaderRow int

// HeaderNone is header_row "none": columns are named by position.
const HeaderNone HeaderRow = -1

// MarshalJSON writes "none" or the number.
func (h HeaderRow) MarshalJSON() ([]byte, error) {
	if h == HeaderNone {
		return []byte(`"none"`), nil
	}
	return json.Marshal(int(h))
}

// UnmarshalJSON reads a number or "none".
func (h *HeaderRow) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if !strings.EqualFold(s, "none") {
			return fmt.Errorf("header_row: %q is not \"none\"", s)
		}
		*h = HeaderNone
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n < 0 {
		n = -2 // out of range, whatever the number: refused by ParseOptions
	}
	*h = HeaderRow(n)
	return nil
}

// FooterRows is the footer_rows option: 0 ("auto" in JSON) detects notes
// below the table, FooterNone ("none") reads every record, n ≥ 1 skips
// the last n records.
type FooterRows int

// FooterNone is footer_rows "none".
const FooterNone FooterRows = -1

// MarshalJSON writes "auto", "none" or the number.
func (f FooterRows) MarshalJSON() ([]byte, error) {
	switch f {
	case 0:
		return []byte(`"auto"`), nil
	case FooterNone:
		return []byte(`"none"`), nil
	}
	return json.Marshal(int(f))
}

// UnmarshalJSON reads "auto", "none" or a number.
func (f *FooterRows) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch strings.ToLower(s) {
		case "auto":
			*f = 0
		case "none":
			*f = FooterNone
		default:
			return fmt.Errorf("footer_rows: %q is not auto or none", s)
		}
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n < 1 {
		n = -2 // out of range: refused by ParseOptions (0 is written "auto")
	}
	*f = FooterRows(n)
	return nil
}

// JSON is the options document of the job object: every option with its
// effective value.
func (o Options) JSON() []byte {
	b, err := json.Marshal(o)
	if err != nil {
		panic(fmt.Sprint("options: ", err))
	}
	return b
}

// ReadOptions are the options readers use.
func (o Options) ReadOptions(limits table.Limits) table.ReadOptions {
	r := table.ReadOptions{SkipRows: o.SkipRows, Sheet: o.Sheet, FooterRows: int(o.FooterRows), Limits: limits}
	if o.HeaderRow == HeaderNone {
		r.NoHeader = true
	} else {
		r.HeaderRow = int(o.HeaderRow)
	}
	switch o.Quote { // "" (a zero Options) is auto
	case "auto", "":
	case "none":
		r.Quote = table.QuoteNone
	default:
		r.Quote = o.Quote
	}
	switch o.Escape {
	case "auto", "":
	case "none":
		r.Escape = table.EscapeNone
	default:
		r.Escape = o.Escape
	}
	switch o.Comment { // "" (a zero Options) is auto
	case "auto", "":
	default:
		r.Comment = o.Comment
	}
	switch o.Delimiter {
	case "auto", "":
	case "\\t":
		r.Delimiter = '\t'
	default:
		r.Delimiter = rune(o.Delimiter[0])
	}
	if o.Encoding != "auto" {
		r.Encoding = o.Encoding
	}
	return r
}
