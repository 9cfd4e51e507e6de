// Package normalize is the engine that turns a table into rows that
// conform to a target schema: header → mapping → per-column coercion and
// constraints → valid rows and issues, streaming, in bounded memory. It
// does no I/O of its own: it reads table.Readers and writes io.Writers.
package normalize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Mode is what a job does (API.md §7).
type Mode string

const (
	ModeNormalize Mode = "normalize"
	ModeValidate  Mode = "validate"
	ModeInfer     Mode = "infer"
)

// ParseMode validates a mode; "" is normalize.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeNormalize, nil
	case ModeNormalize, ModeValidate, ModeInfer:
		return m, nil
	}
	return "", domain.Errorf(domain.ErrInvalid, "invalid_mode", "Unknown mode %q: use normalize, validate or infer.", s)
}

// Options are a job's options with their effective values.
type Options struct {
	Delimiter    string            `json:"delimiter"`
	Encoding     string            `json:"encoding"`
	HeaderRow    int               `json:"header_row"`
	SkipRows     int               `json:"skip_rows"`
	Sheet        string            `json:"sheet"`
	Mapping      map[string]string `json:"mapping"`
	Trim         bool              `json:"trim"`
	DateOrder    string            `json:"date_order"`
	PhoneRegion  string            `json:"phone_region"`
	OnError      string            `json:"on_error"`
	MaxErrors    int64             `json:"max_errors"`
	KeepUnmapped bool              `json:"keep_unmapped"`
	Dedupe       bool              `json:"dedupe"`
	SampleRows   int               `json:"sample_rows"`
}

// Defaults returns the options of a mode before the client's.
func Defaults(m Mode) Options {
	return Options{Delimiter: "auto", Encoding: "auto", Mapping: map[string]string{}, Trim: true, DateOrder: "auto",
		PhoneRegion: "US", OnError: "skip_row", SampleRows: 10000}
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
		v := raw[k]
		var err error
		switch k {
		case "delimiter":
			err = json.Unmarshal(v, &o.Delimiter)
			if err == nil && o.Delimiter != "auto" && o.Delimiter != "\\t" && len(o.Delimiter) != 1 {
				add(k, "must be one ASCII character, \"\\t\" or \"auto\"")
			}
		case "encoding":
			err = json.Unmarshal(v, &o.Encoding)
			if err == nil && !validEncoding(o.Encoding) {
				add(k, "must be auto, utf-8, utf-16le, utf-16be, windows-1252 or latin-1")
			}
		case "header_row":
			err = json.Unmarshal(v, &o.HeaderRow)
			if err == nil && o.HeaderRow < 0 {
				add(k, "must be 1 or more (0 or absent: detect)")
			}
		case "skip_rows":
			err = json.Unmarshal(v, &o.SkipRows)
			if err == nil && o.SkipRows < 0 {
				add(k, "must be 0 or more")
			}
		case "sheet":
			var n json.Number
			if json.Unmarshal(v, &n) == nil {
				o.Sheet = n.String()
			} else {
				err = json.Unmarshal(v, &o.Sheet)
			}
		case "mapping":
			err = json.Unmarshal(v, &o.Mapping)
			if o.Mapping == nil {
				o.Mapping = map[string]string{}
			}
		case "trim":
			err = json.Unmarshal(v, &o.Trim)
		case "date_order":
			err = json.Unmarshal(v, &o.DateOrder)
			if err == nil && !oneOf(o.DateOrder, "auto", "DMY", "MDY", "YMD") {
				add(k, "must be auto, DMY, MDY or YMD")
			}
		case "phone_region":
			err = json.Unmarshal(v, &o.PhoneRegion)
			o.PhoneRegion = strings.ToUpper(o.PhoneRegion)
			if err == nil && !validRegion(o.PhoneRegion) {
				add(k, "must be an ISO 3166-1 alpha-2 region such as US or GB")
			}
		case "on_error":
			err = json.Unmarshal(v, &o.OnError)
			if err == nil && !oneOf(o.OnError, "skip_row", "fail_job", "null_value") {
				add(k, "must be skip_row, fail_job or null_value")
			}
		case "max_errors":
			err = json.Unmarshal(v, &o.MaxErrors)
			if err == nil && o.MaxErrors < 0 {
				add(k, "must be 0 or more (0: no limit)")
			}
		case "keep_unmapped":
			err = json.Unmarshal(v, &o.KeepUnmapped)
		case "dedupe":
			err = json.Unmarshal(v, &o.Dedupe)
		case "sample_rows":
			err = json.Unmarshal(v, &o.SampleRows)
			if err == nil && (o.SampleRows < 1 || o.SampleRows > 1_000_000) {
				add(k, "must be 1 to 1000000")
			}
		default:
			add(k, "unknown option")
			continue
		}
		if err != nil {
			add(k, "has the wrong type")
		}
	}
	if len(errs) > 0 {
		return o, &domain.Error{Kind: domain.ErrInvalid, Code: "invalid_request", Message: "The options are not valid; see errors.", Fields: errs}
	}
	return o, nil
}

func optionErr(field, msg string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: "invalid_request", Message: "The options are not valid; see errors.",
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
	return oneOf(strings.ToLower(s), "auto", "utf-8", "utf8", "utf-16le", "utf-16be", "utf-16", "windows-1252", "cp1252", "latin-1", "latin1", "iso-8859-1")
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
	r := table.ReadOptions{HeaderRow: o.HeaderRow, SkipRows: o.SkipRows, Sheet: o.Sheet, Limits: limits}
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
