package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ValidateType is the type of a batch sent to a hook.
const ValidateType = "rows.validate"

// The bounds of a schema's hook declaration and of an answer.
const (
	// MaxBatchSize bounds the rows of one request.
	MaxBatchSize = 1000
	// DefaultBatchSize is a declaration's batch_size when it says none.
	DefaultBatchSize = 500
	// MaxMessage bounds an answered issue's message, in characters.
	MaxMessage = 500
	// MaxIssuesPerRow bounds the issues answered for one row.
	MaxIssuesPerRow = 20
)

// The ways a job treats a hook that fails (a batch without a usable
// answer).
const (
	FailJob  = "fail_job"  // the job fails with hook_failed
	FlagRows = "flag_rows" // each row of the batch gets the warning hook_unavailable
	Skip     = "skip"      // a job-level warning only
)

// DefaultAnswerBytesPerRow is what an answer may hold a row by default
// (TABNORM_HOOK_ANSWER_BYTES_PER_ROW).
const DefaultAnswerBytesPerRow = 4 << 10

// MaxAnswerBytes bounds the answer to a batch of n rows: 64 KiB and
// perRow bytes a row (0: DefaultAnswerBytesPerRow). A longer answer fails
// the batch.
func MaxAnswerBytes(n int, perRow int64) int64 {
	if perRow <= 0 {
		perRow = DefaultAnswerBytesPerRow
	}
	return 64<<10 + int64(n)*perRow
}

// Row is one row of a batch: its number in the file and the values of the
// fields the declaration lists, as the job's rows hold them: one JSON
// object, kept as bytes so that a batch is sent without decoding and
// encoding each row again (BenchmarkEngineHook).
type Row struct {
	Row    int64           `json:"row"`
	Values json.RawMessage `json:"values"`
}

// Value returns the JSON of one field's value, nil when the row has none.
func (r Row) Value(field string) json.RawMessage {
	var all map[string]json.RawMessage
	if json.Unmarshal(r.Values, &all) != nil {
		return nil
	}
	return all[field]
}

// Batch is the body of a request to a hook.
type Batch struct {
	Type  string `json:"type"`
	JobID string `json:"job_id"`
	Hook  string `json:"hook"`
	Rows  []Row  `json:"rows"`
}

// Encode writes the batch as its request's body. The rows' values are
// written as they are (each a JSON object the run wrote), which spares
// json.Marshal's second scan of every row.
func (b Batch) Encode() []byte {
	size := 64 + len(b.JobID) + len(b.Hook)
	for _, r := range b.Rows {
		size += 32 + len(r.Values)
	}
	out := make([]byte, 0, size)
	out = append(out, `{"type":`...)
	out = appendString(out, b.Type)
	out = append(out, `,"job_id":`...)
	out = appendString(out, b.JobID)
	out = append(out, `,"hook":`...)
	out = appendString(out, b.Hook)
	out = append(out, `,"rows":[`...)
	for i, r := range b.Rows {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"row":`...)
		out = strconv.AppendInt(out, r.Row, 10)
		out = append(out, `,"values":`...)
		if len(r.Values) == 0 {
			out = append(out, "{}"...)
		} else {
			out = append(out, r.Values...)
		}
		out = append(out, '}')
	}
	return append(out, "]}"...)
}

func appendString(out []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(out, q...)
}

// Issue is a problem a hook found in a row.
type Issue struct {
	Field    string `json:"field,omitempty"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// Correction is a hook's value for a field, as cell text to be coerced
// again (Null: the field is set to null).
type Correction struct {
	Field string
	Value string
	Null  bool
}

// Answer is what a hook said of one row.
type Answer struct {
	Row         int64
	Issues      []Issue
	Corrections []Correction
}

type answerDoc struct {
	Rows []struct {
		Row    int64                      `json:"row"`
		Issues []Issue                    `json:"issues"`
		Values map[string]json.RawMessage `json:"values"`
	} `json:"rows"`
}

var codeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ErrAnswer is a hook's answer that is not taken: the batch has failed.
type ErrAnswer struct{ Reason string }

func (e *ErrAnswer) Error() string { return "the answer was refused: " + e.Reason }

func refuse(format string, args ...any) error {
	return &ErrAnswer{Reason: fmt.Sprintf(format, args...)}
}

// ParseAnswer reads a hook's answer to a batch: only rows the batch held,
// each at most once; issues of fields the schema has, with a severity of
// error or warning, a code of lower-case letters, digits and _, and a
// message; corrections only of the fields the declaration lists
// (fields). Anything else refuses the whole answer, so a hook that
// misbehaves fails its batch (on_error decides what that does) rather
// than changing rows it was not asked about.
func ParseAnswer(body []byte, sent []Row, fields, schemaFields []string) ([]Answer, error) {
	var doc answerDoc
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&doc); err != nil {
		return nil, refuse("not a JSON object with rows: %v", err)
	}
	held := make(map[int64]bool, len(sent))
	for _, r := range sent {
		held[r.Row] = false
	}
	out := make([]Answer, 0, len(doc.Rows))
	for _, r := range doc.Rows {
		seen, ok := held[r.Row]
		if !ok {
			return nil, refuse("it answers for row %d, which the batch did not hold", r.Row)
		}
		if seen {
			return nil, refuse("it answers twice for row %d", r.Row)
		}
		held[r.Row] = true
		a := Answer{Row: r.Row}
		if len(r.Issues) > MaxIssuesPerRow {
			return nil, refuse("row %d has %d issues, more than %d", r.Row, len(r.Issues), MaxIssuesPerRow)
		}
		for _, is := range r.Issues {
			if err := checkIssue(is, schemaFields); err != nil {
				return nil, refuse("row %d: %v", r.Row, err)
			}
			a.Issues = append(a.Issues, is)
		}
		for _, f := range sortedKeys(r.Values) {
			if !slices.Contains(fields, f) {
				return nil, refuse("row %d: it corrects %q, which the schema's declaration does not list in fields", r.Row, f)
			}
			c, err := correction(f, r.Values[f])
			if err != nil {
				return nil, refuse("row %d: %v", r.Row, err)
			}
			a.Corrections = append(a.Corrections, c)
		}
		if len(a.Issues) > 0 || len(a.Corrections) > 0 {
			out = append(out, a)
		}
	}
	return out, nil
}

func checkIssue(is Issue, schemaFields []string) error {
	switch {
	case is.Severity != "error" && is.Severity != "warning":
		return fmt.Errorf("severity %q is not error or warning", is.Severity)
	case !codeRE.MatchString(is.Code):
		return fmt.Errorf("code %q is not lower-case letters, digits and _ (at most 64)", is.Code)
	case is.Message == "" || utf8.RuneCountInString(is.Message) > MaxMessage || !utf8.ValidString(is.Message):
		return fmt.Errorf("an issue needs a message of at most %d characters", MaxMessage)
	case is.Field != "" && !slices.Contains(schemaFields, is.Field):
		return fmt.Errorf("field %q is not in the schema", is.Field)
	}
	return nil
}

// correction turns a JSON value into cell text: a string as it is, a
// number or a boolean as written, null as null.
func correction(field string, v json.RawMessage) (Correction, error) {
	v = bytes.TrimSpace(v)
	c := Correction{Field: field}
	switch {
	case bytes.Equal(v, []byte("null")):
		c.Null = true
	case len(v) > 0 && v[0] == '"':
		if err := json.Unmarshal(v, &c.Value); err != nil {
			return c, err
		}
	case bytes.Equal(v, []byte("true")) || bytes.Equal(v, []byte("false")):
		c.Value = string(v)
	default:
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return c, fmt.Errorf("the value of %q is not a string, number, boolean or null", field)
		}
		c.Value = string(v)
	}
	return c, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
