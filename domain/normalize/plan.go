package normalize

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// plan is one source compiled: where each column goes and how.
type plan struct {
	fileID    string
	header    []string
	to        []int // source column → field index, -1 unmapped
	columns   []coerce.Column
	fieldKey  [][]byte // `{"name":` for the first field, `,"name":` for the others
	uniq      []int    // field indexes with unique constraints
	pk        []int    // primary key field indexes
	missing   []string
	maxMiss   int       // longest missing value
	missEmpty bool      // "" is a missing value
	missFirst [256]bool // the first bytes of the others
	opts      Options
	// values are the fields' value_map replacements (nil: none at all;
	// a nil entry: none for that field).
	values []*valueMap
	// keepRejected writes rejected rows' JSON too, their refused cells
	// null: a review's preview shows them (review.go).
	keepRejected bool
	// stage computes fields and checks lists and rules (rules.go); nil
	// when the schema has none. computed are the computed fields'
	// columns, which coerce a computed value (never in validate mode).
	stage    *stage
	computed []coerce.Column
	// sourceColumns are the columns expressions read as source["…"] (nil:
	// every column).
	sourceColumns []int
	// keyColumns are the columns of the source keys compiled expressions
	// read (rules.Env.KeyColumns).
	keyColumns []int
	// edits are the file's edits by row (nil: none), and unapplied the
	// rows whose edits no written row took yet (edits.go).
	edits     map[int64][]cellEdit
	unapplied map[int64]bool
	// repl are the run's replacements in step order (replace.go).
	repl []planReplacer
	// hooks are the validation hooks each processed batch goes through
	// (hooks.go; nil: none, and the pipeline has no hook stage).
	hooks []HookUse
}

// currencyWarnings warns of a number column whose values carried several
// currencies when the schema has no currency field to keep them in: the
// amounts came out as numbers, and which currency each was in is lost.
func (w *writer) currencyWarnings(p *plan) {
	for _, f := range p.to {
		if f >= 0 && w.in.Schema.Fields[f].Format == schema.Currency {
			return // the file's currency column keeps it
		}
	}
	for c, f := range p.to {
		if f < 0 {
			continue
		}
		mixed := p.columns[f].MixedCurrencies()
		if mixed == "" {
			continue
		}
		name := p.columns[f].Field.Name
		w.issue(Issue{SourceFile: p.fileID, Column: p.header[c], Field: name, Severity: warning, Code: "mixed_currencies",
			Message: fmt.Sprintf("The amounts of column %q are in several currencies: %s. They came out as numbers in field %q, which does not say the currency; add a field with format currency (mapped to a column that holds it) or read each currency separately.",
				p.header[c], mixed, name)})
	}
}

// fileWarnings reports what the reader decided that a person should
// check: records skipped above the header, an encoding it guessed.
func (w *writer) fileWarnings(fileID string, d table.Detection) {
	if d.SkippedCount > 0 {
		rows := make([]string, len(d.SkippedRows))
		for i, r := range d.SkippedRows {
			rows[i] = strconv.Itoa(r)
		}
		more := ""
		if d.SkippedCount > len(d.SkippedRows) {
			more = ", …"
		}
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: "skipped_preamble",
			Message: fmt.Sprintf("%d record(s) above the header (row %d) were skipped: rows %s%s. Set header_row to read them.",
				d.SkippedCount, d.HeaderRow, strings.Join(rows, ", "), more)})
	}
	if d.RareEscapes > 0 {
		taken := "were read as escaped quotes (set escape to none if the backslashes are text)"
		if d.Escape == "" {
			taken = "were kept as text: the file reads as well either way (set escape to \\ if they escape quotes)"
		}
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: "rare_escape",
			Message: fmt.Sprintf("The file has few backslash-quote pairs (%d in its first 64 KiB); they %s.", d.RareEscapes, taken)})
	}
	if d.EncodingConfidence == "guessed" {
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: "encoding_guessed",
			Message: fmt.Sprintf("The encoding was guessed as %s; if the text looks wrong, set the encoding option.", d.Encoding)})
	}
}

// ambiguousMappings warns of each field the matcher left open because
// several columns named it as well as one another, naming them: a person
// picks one (options.mapping), and the review proposes the field for
// each of them; and of each synonym mapping another column contested.
func (w *writer) ambiguousMappings(fileID string, ambiguities []match.Ambiguity) {
	for _, a := range ambiguities {
		w.issue(ambiguityIssue(fileID, a))
	}
}

// ambiguityIssue is the warning of one ambiguity: ambiguous_mapping for
// a field left open, synonym_mapping for a contested synonym mapping.
func ambiguityIssue(fileID string, a match.Ambiguity) Issue {
	if !a.Mapped {
		return Issue{SourceFile: fileID, Field: a.Field, Severity: warning, Code: "ambiguous_mapping",
			Message: fmt.Sprintf("Columns %q of %s name field %q equally well (confidence %.2f): none was mapped. Pick one with options.mapping.",
				a.Columns, where(fileID), a.Field, a.Confidences[0])}
	}
	return Issue{SourceFile: fileID, Column: a.Columns[0], Field: a.Field, Severity: warning, Code: "synonym_mapping",
		Message: fmt.Sprintf("Column %q was mapped to field %q as a synonym (confidence %.2f), though column %q names it too (%.2f); check it, or map it explicitly.",
			a.Columns[0], a.Field, a.Confidences[0], a.Columns[1:], a.Confidences[1])}
}

func where(fileID string) string {
	if fileID != "" {
		return "file " + fileID
	}
	return "the file"
}

// plan maps the source's header and compiles its columns.
func (w *writer) plan(ctx context.Context, src Source, r table.Reader) (*plan, error) {
	s := w.in.Schema
	header := r.Header()
	if d, ok := r.(table.Describer); ok {
		det := d.Detection()
		w.res.Detected = append(w.res.Detected, FileDetection{SourceFile: src.FileID, Detection: det})
		w.fileWarnings(src.FileID, det)
	}
	to, entries, mt := match.Columns(match.Input{Header: header, Schema: s, Explicit: w.in.Options.Mapping, Learned: w.in.Learned, Lists: w.in.Lists,
		Values: func() [][]string { return columnValuesOf(ctx, src, len(header), s.MissingValues) }})
	for i := range entries {
		entries[i].SourceFile = src.FileID
		w.mappingWarning(src.FileID, entries[i])
	}
	w.ambiguousMappings(src.FileID, mt.Ambiguities())
	w.res.Mapping = append(w.res.Mapping, entries...)
	for _, is := range readerWarnings(r, src.FileID, header) {
		w.issue(is)
	}
	mapped := make([]bool, len(s.Fields))
	some := false
	for _, f := range to {
		if f >= 0 {
			mapped[f], some = true, true
		}
	}
	for i, f := range s.Fields {
		if f.Constraints.Required && !mapped[i] && f.Compute == "" {
			return nil, fail(domain.CodeRequiredFieldUnmapped, "Required field %q matches no column of %s (columns: %q). Map it with options.mapping.", f.Name, where(src.FileID), header)
		}
	}
	if !some {
		return nil, fail(domain.CodeNoColumnsMapped, "No field of the schema matches a column of %s (columns: %q): every row would be empty. Map columns with options.mapping.",
			where(src.FileID), header)
	}
	w.unmappedFields(src.FileID, header, mapped)
	decisions, err := w.settle(ctx, src, header, to)
	if err != nil {
		return nil, err
	}
	w.res.Decisions = append(w.res.Decisions, decisions...)
	p := &plan{fileID: src.FileID, header: header, to: to, missing: s.MissingValues, opts: w.in.Options}
	for _, m := range s.MissingValues {
		p.maxMiss = max(p.maxMiss, len(m))
		if m == "" {
			p.missEmpty = true
		} else {
			p.missFirst[m[0]] = true
		}
	}
	for i, f := range s.Fields {
		if vm := compileValueMap(w.in.Options.ValueMap[f.Name], w.in.Options.Trim, w.in.Options.ValueMapCaseInsensitive); vm != nil {
			if p.values == nil {
				p.values = make([]*valueMap, len(s.Fields))
			}
			p.values[i] = vm
		}
		p.columns = append(p.columns, coerce.Compile(withLocaleBooleans(f, w.in.Options.BooleanLocale), w.in.Mode == ModeValidate, decisions[i].DateOrder, decisions[i].Decimal, w.in.Options.PhoneRegion))
		sep := byte(',')
		if i == 0 {
			sep = '{'
		}
		p.fieldKey = append(p.fieldKey, append(appendJSONString([]byte{sep}, f.Name), ':'))
		if f.Constraints.Unique {
			p.uniq = append(p.uniq, i)
		}
	}
	for _, k := range s.PrimaryKey {
		p.pk = append(p.pk, s.Index(k))
	}
	w.planEdits(p)
	if err := w.planReplacements(p); err != nil {
		return nil, err
	}
	p.hooks = w.in.Hooks
	if err := w.planStage(p); err != nil {
		return nil, err
	}
	return p, nil
}

// mappingWarning warns of a mapping a person should check: one made by
// a header's likeness to the field's name, or by the column's values.
func (w *writer) mappingWarning(fileID string, e match.Entry) {
	if is, ok := mappingWarningIssue(fileID, e); ok {
		w.issue(is)
	}
}

// mappingWarningIssue is the warning of a mapping made by likeness or by
// values; false for the other methods.
func mappingWarningIssue(fileID string, e match.Entry) (Issue, bool) {
	switch e.Method {
	case match.MethodFuzzy:
		return Issue{SourceFile: fileID, Column: e.SourceColumn, Field: e.Field, Severity: warning, Code: "fuzzy_mapping",
			Message: fmt.Sprintf("Column %q was mapped to field %q by similarity (%.2f); check it, or map it explicitly.", e.SourceColumn, e.Field, e.Confidence)}, true
	case match.MethodContent:
		return Issue{SourceFile: fileID, Column: e.SourceColumn, Field: e.Field, Severity: warning, Code: "content_mapping",
			Message: fmt.Sprintf("Column %q was mapped to field %q by its values (%.0f%% read as %s; confidence %.2f); check it, or map it explicitly.",
				e.SourceColumn, e.Field, 100*e.Evidence.Values, e.Evidence.Matched, e.Confidence)}, true
	}
	return Issue{}, false
}

// unmappedFields warns of each field (not computed) that matches no column
// of the file: it is null in every row, never in silence.
func (w *writer) unmappedFields(fileID string, header []string, mapped []bool) {
	for i, f := range w.in.Schema.Fields {
		if !mapped[i] && f.Compute == "" {
			w.issue(Issue{SourceFile: fileID, Field: f.Name, Severity: warning, Code: "unmapped_field",
				Message: fmt.Sprintf("Field %q matches no column of %s (columns: %q): it is null in every row. Map it with options.mapping, or leave it out of the schema.", f.Name, where(fileID), header)})
		}
	}
}
