package normalize

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// A replacement is find-and-replace over one field's cells of a job: a
// stored operation, not an edit a cell, so that it changes a million cells
// at the cost of one. A run applies it where it applies edits: before the
// cell is coerced and checked, in place of value_map. Edits and
// replacements are ordered by their step (the job's history): a
// replacement changes a cell's text as the file has it, or as an edit of
// an earlier step set it, never a cell an edit of a later step set; a
// later replacement changes what an earlier one made.

// The ways a replacement's find matches a cell.
const (
	MatchExact    = "exact"    // the whole cell's text, case-sensitive
	MatchContains = "contains" // each occurrence, case-insensitive
	MatchRegex    = "regex"    // RE2; replace may name groups ($1)
)

// MaxFindBytes bounds a replacement's find (a regular expression's
// program grows with its text; RE2 keeps its matching linear).
const MaxFindBytes = 1000

// Replacement is a stored find-and-replace over a field's cells.
type Replacement struct {
	Field   string
	Find    string
	Replace string
	Match   string
	// Step orders it among the job's edits and replacements.
	Step int64
	// Rows, when not nil, are the only rows it changes, by file id (""
	// for an uploaded file): those rejected when it was made, for a
	// replacement of status rejected.
	Rows map[string][]int64
}

// CheckReplacement finds the problems of a replacement of a job with
// schema s: a field the schema does not have or computes, a find empty or
// too long, a regular expression RE2 does not read, a match or replace
// not allowed.
func CheckReplacement(r Replacement, s *schema.Schema) []domain.FieldError {
	var errs []domain.FieldError
	switch k := s.Index(r.Field); {
	case r.Field == "":
		errs = append(errs, domain.FieldError{Field: "field", Message: "required"})
	case k < 0:
		errs = append(errs, domain.FieldError{Field: "field", Message: fmt.Sprintf("%q is not a field of the job's schema", r.Field)})
	case s.Fields[k].Compute != "":
		errs = append(errs, domain.FieldError{Field: "field", Message: fmt.Sprintf("%q is computed from other fields; replace in those", r.Field)})
	}
	switch r.Match {
	case MatchExact, MatchContains, MatchRegex:
	default:
		errs = append(errs, domain.FieldError{Field: "match", Message: "must be exact, contains or regex"})
	}
	switch {
	case r.Find == "" && r.Match != MatchExact:
		errs = append(errs, domain.FieldError{Field: "find", Message: "required: the text to find"})
	case len(r.Find) > MaxFindBytes:
		errs = append(errs, domain.FieldError{Field: "find", Message: fmt.Sprintf("at most %d bytes", MaxFindBytes)})
	case !utf8.ValidString(r.Find) || strings.IndexByte(r.Find, 0) >= 0:
		errs = append(errs, domain.FieldError{Field: "find", Message: "must be UTF-8 text without NUL bytes"})
	case r.Match == MatchRegex:
		if _, err := regexp.Compile(r.Find); err != nil {
			errs = append(errs, domain.FieldError{Field: "find", Message: "is not a regular expression (RE2 syntax): " + err.Error()})
		}
	}
	switch {
	case len(r.Replace) > MaxEditValueBytes:
		errs = append(errs, domain.FieldError{Field: "replace", Message: fmt.Sprintf("is over %d bytes", MaxEditValueBytes)})
	case !utf8.ValidString(r.Replace) || strings.IndexByte(r.Replace, 0) >= 0:
		errs = append(errs, domain.FieldError{Field: "replace", Message: "must be UTF-8 text without NUL bytes"})
	}
	return errs
}

// Replacer is a replacement compiled: what matches a cell, and what the
// cell becomes.
type Replacer struct {
	Replacement
	re    *regexp.Regexp
	lower []byte // contains: find in lower case
	ascii bool   // contains: find is ASCII, matched without a regexp
	rows  map[string][]int64
}

// Compile compiles a replacement CheckReplacement found nothing wrong with.
func (r Replacement) Compile() (*Replacer, error) {
	c := &Replacer{Replacement: r}
	switch r.Match {
	case MatchRegex:
		re, err := regexp.Compile(r.Find)
		if err != nil {
			return nil, fmt.Errorf("replacement of %s: %w", r.Field, err)
		}
		c.re = re
	case MatchContains:
		c.re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(r.Find))
		c.lower = []byte(strings.ToLower(r.Find))
		c.ascii = isASCII(r.Find)
	}
	if r.Rows != nil {
		c.rows = make(map[string][]int64, len(r.Rows))
		for f, rows := range r.Rows {
			s := slices.Clone(rows)
			slices.Sort(s)
			c.rows[f] = s
		}
	}
	return c, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// AppliesTo says whether the replacement may change a row's cells.
func (c *Replacer) AppliesTo(file string, row int64) bool {
	if c.rows == nil {
		return true
	}
	_, ok := slices.BinarySearch(c.rows[file], row)
	return ok
}

// Matches says whether find matches a cell's text; scratch is a buffer
// the call may reuse.
func (c *Replacer) Matches(cell []byte, scratch *[]byte) bool {
	switch c.Match {
	case MatchExact:
		return string(cell) == c.Find
	case MatchContains:
		if c.ascii {
			b := (*scratch)[:0]
			for _, x := range cell {
				if 'A' <= x && x <= 'Z' {
					x += 'a' - 'A'
				}
				b = append(b, x)
			}
			*scratch = b
			return bytes.Contains(b, c.lower)
		}
		return c.re.Match(cell)
	default:
		return c.re.Match(cell)
	}
}

// Apply returns a cell's text with the replacement made, and whether find
// matched it. A result over MaxEditValueBytes leaves the cell as it was.
func (c *Replacer) Apply(s string) (string, bool) {
	var out string
	switch c.Match {
	case MatchExact:
		if s != c.Find {
			return s, false
		}
		out = c.Replace
	case MatchContains:
		if !c.re.MatchString(s) {
			return s, false
		}
		out = c.re.ReplaceAllLiteralString(s, c.Replace)
	default:
		if !c.re.MatchString(s) {
			return s, false
		}
		out = c.re.ReplaceAllString(s, c.Replace)
	}
	if len(out) > MaxEditValueBytes {
		return s, false
	}
	return out, true
}

// planReplacements compiles the replacements of a run for its plan, by
// field, in step order; a field the schema does not have, or computes, is
// skipped (refused when made).
func (w *writer) planReplacements(p *plan) error {
	s := w.in.Schema
	rs := slices.Clone(w.in.Replacements)
	slices.SortStableFunc(rs, func(a, b Replacement) int { return int(min(max(a.Step-b.Step, -1), 1)) })
	for _, r := range rs {
		f := s.Index(r.Field)
		if f < 0 || s.Fields[f].Compute != "" {
			continue
		}
		c, err := r.Compile()
		if err != nil {
			return err
		}
		p.repl = append(p.repl, planReplacer{field: f, r: c})
	}
	return nil
}

// planReplacer is a replacement compiled for a plan: the field's index.
type planReplacer struct {
	field int
	r     *Replacer
}

// replaced returns a record's edits with its replacements made: a cell a
// replacement changed reads as an edit of it (a new one, or the edit it
// changed). ed is not changed; nil without replacements that match.
func (p *plan) replaced(number int64, cells []string, ed []cellEdit) []cellEdit {
	if len(p.repl) == 0 {
		return ed
	}
	out := ed
	copied := false
	for _, pr := range p.repl {
		if !pr.r.AppliesTo(p.fileID, number) {
			continue
		}
		e := editOf(out, pr.field)
		var s string
		step := int64(-1) // the file's text: older than every step
		if e != nil {
			if e.null {
				continue
			}
			s, step = e.value, e.step
		} else {
			c := p.columnOf(pr.field)
			if c < 0 || c >= len(cells) {
				continue
			}
			s = cells[c]
		}
		if pr.r.Step <= step {
			continue
		}
		ns, ok := pr.r.Apply(s)
		if !ok {
			continue
		}
		if !copied {
			out = append(make([]cellEdit, 0, len(ed)+1), ed...)
			copied = true
		}
		if e := editOf(out, pr.field); e != nil {
			e.value, e.step = ns, pr.r.Step
			continue
		}
		out = append(out, cellEdit{field: pr.field, value: ns, step: pr.r.Step, replaced: true})
	}
	return out
}
