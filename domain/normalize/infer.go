package normalize

import (
	"context"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// ColumnProfile describes one source column as infer mode saw it.
type ColumnProfile struct {
	Column         string
	Field          string
	Type           schema.Type
	Format         schema.Format
	Rows           int64
	NullCount      int64
	DistinctCount  int64
	DistinctCapped bool // DistinctCount is a lower bound
	Examples       []string
}

// NullRate is the share of missing values, 0–1.
func (p ColumnProfile) NullRate() float64 {
	if p.Rows == 0 {
		return 0
	}
	return float64(p.NullCount) / float64(p.Rows)
}

// maxDistinct bounds the values kept per column to count distinct ones.
const maxDistinct = 10_000

// candidate types, most specific first; a column gets the first that
// every non-missing value fits.
type candidate struct {
	typ     schema.Type
	format  schema.Format
	fits    func(string) bool
	decimal string // numbers: the decimal mark they are read with
}

// Numbers are read by the engine's own parser (so £68,486.66 and 12,426
// are numbers), once with each decimal mark; the column's evidence picks
// the mark, as the engine does.
var candidates = []candidate{
	{schema.Boolean, schema.Default, func(s string) bool { _, ok := parseBoolean(s, nil, nil); return ok && !allDigits(s) }, ""},
	{schema.Integer, schema.Default, func(s string) bool { return inferInteger(s, ".") }, "."},
	{schema.Integer, schema.Default, func(s string) bool { return inferInteger(s, ",") }, ","},
	{schema.Number, schema.Default, func(s string) bool { return inferNumber(s, ".") }, "."},
	{schema.Number, schema.Default, func(s string) bool { return inferNumber(s, ",") }, ","},
	{schema.Date, schema.Default, func(s string) bool { _, ok := parseDate(s, orderMDY); return ok || isDMYOnly(s) }, ""},
	{schema.DateTime, schema.Default, func(s string) bool {
		_, tp := splitDateTime(s)
		_, _, ok := parseDateTime(s, orderMDY)
		return ok && tp != ""
	}, ""},
	{schema.String, schema.Email, func(s string) bool { _, ok := parseEmail(new(scratch), s); return ok }, ""},
	{schema.String, schema.UUID, func(s string) bool { _, ok := parseUUID(s); return ok }, ""},
	{schema.String, schema.URI, func(s string) bool { _, ok := parseURI(s); return ok && strings.Contains(s, "://") }, ""},
	{schema.String, schema.Country, func(s string) bool { _, ok := parseCountry(s); return ok && len(s) > 1 }, ""},
}

// inferNumber: a number with the decimal mark dec, unless its digits have
// a leading zero (an identifier, such as 00501, stays text).
func inferNumber(s, dec string) bool {
	t := strings.TrimPrefix(s, "-")
	if len(t) > 1 && t[0] == '0' && isDigit(t[1]) {
		return false
	}
	_, ok := parseDecimal(new(scratch), s, dec, "")
	return ok
}

// inferInteger: a number without a fraction or an exponent.
func inferInteger(s, dec string) bool {
	if !inferNumber(s, dec) {
		return false
	}
	v, _ := parseDecimal(new(scratch), s, dec, "")
	return !strings.ContainsAny(v, ".eE") && len(strings.TrimPrefix(v, "-")) <= 18
}

func isDMYOnly(s string) bool { _, ok := parseDate(s, orderDMY); return ok }

type profiler struct {
	// decimal mark evidence (decimalEvidence)
	point, comma, ambiguous int
	prof                    ColumnProfile
	distinct                map[string]struct{}
	alive                   []bool // per candidate: every value so far fits
}

// runInfer profiles the first sample_rows records of each source and
// proposes a schema whose fields are the columns.
func runInfer(ctx context.Context, in Input, out Output) (Result, error) {
	var res Result
	byName := map[string]*profiler{}
	var order []string
	missing := map[string]bool{"": true, "na": true, "n/a": true, "null": true, "none": true, "-": true, "nan": true}
	// The tokens treated as missing, as they were written: the proposed
	// missingValues, which the engine compares exactly (after trimming, as
	// here), so the schema reads the file as infer did.
	seenMissing := map[string]bool{"": true}
	for _, src := range in.Sources {
		r, err := src.Open()
		if err != nil {
			return res, readerFailure(err, src.FileID)
		}
		header := r.Header()
		if d, ok := r.(table.Describer); ok {
			res.Detected = append(res.Detected, FileDetection{SourceFile: src.FileID, Detection: d.Detection()})
		}
		profs := make([]*profiler, len(header))
		used := map[string]bool{}
		for i, h := range header {
			name := uniqueName(fieldName(h, i), used)
			p, ok := byName[name]
			if !ok {
				p = &profiler{prof: ColumnProfile{Column: h, Field: name}, distinct: map[string]struct{}{}, alive: make([]bool, len(candidates))}
				for k := range p.alive {
					p.alive[k] = true
				}
				byName[name] = p
				order = append(order, name)
			}
			profs[i] = p
			res.Mapping = append(res.Mapping, MappingEntry{SourceFile: src.FileID, SourceColumn: h, Field: name, Method: MethodNormalized, Confidence: 1})
		}
		for n := 0; n < in.Options.SampleRows; n++ {
			if n%1024 == 0 && ctx.Err() != nil {
				_ = r.Close()
				return res, ctx.Err()
			}
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				_ = r.Close()
				return res, readerFailure(err, src.FileID)
			}
			res.Progress.RowsRead++
			for i, p := range profs {
				v := ""
				if i < len(rec.Cells) {
					v = trimSpace(rec.Cells[i])
				}
				if p.observe(v, missing) && !seenMissing[v] && len(seenMissing) < maxMissingTokens {
					seenMissing[strings.Clone(v)] = true
				}
			}
		}
		res.Progress.BytesRead += r.BytesRead()
		_ = r.Close()
	}
	if len(order) == 0 {
		return res, fail(domain.CodeNoColumns, "The file has no columns: there is nothing to infer a schema from.")
	}
	if len(order) > schema.MaxFields {
		return res, fail(domain.CodeTooManyColumns, "The files have %d distinct columns together; a schema holds at most %d.", len(order), schema.MaxFields)
	}
	s := &schema.Schema{MissingValues: slices.Sorted(maps.Keys(seenMissing))}
	for _, name := range order {
		p := byName[name]
		p.prof.Type, p.prof.Format = schema.String, schema.Default
		dec := "."
		if p.comma > p.point {
			dec = ","
		}
		if p.prof.Rows > p.prof.NullCount {
			for k, c := range candidates {
				if p.alive[k] && (c.decimal == "" || c.decimal == dec) {
					p.prof.Type, p.prof.Format = c.typ, c.format
					break
				}
			}
		}
		p.prof.DistinctCount = int64(len(p.distinct))
		f := schema.Field{Name: name, Type: p.prof.Type, Format: p.prof.Format}
		if (f.Type == schema.Number || f.Type == schema.Integer) && p.point+p.comma+p.ambiguous > 0 {
			f.DecimalChar = dec // the mark infer read with, for the engine to read with
		}
		if HeaderKey(p.prof.Column) != HeaderKey(name) || p.prof.Column != name {
			f.Aliases = []string{p.prof.Column}
		}
		s.Fields = append(s.Fields, f)
		res.Profile = append(res.Profile, p.prof)
	}
	// The proposal must itself be a valid schema; a name or an alias it
	// cannot hold is a bug here, never a schema the client gets.
	if _, err := schema.Parse(s.JSON()); err != nil {
		return res, fail(domain.CodeInternalError, "The inferred schema is not valid: %v", err)
	}
	res.InferredSchema = s
	return res, nil
}

// maxMissingTokens bounds the spellings of missing values kept (NULL,
// null, Null…): the words above have 50 spellings in all, so it never
// binds, and it keeps the set bounded if the words grow.
const maxMissingTokens = 64

// observe profiles one trimmed value; it says whether it was missing.
func (p *profiler) observe(v string, missing map[string]bool) bool {
	p.prof.Rows++
	if len(v) <= 4 && missing[strings.ToLower(v)] {
		p.prof.NullCount++
		return true
	}
	if _, seen := p.distinct[v]; !seen {
		if len(p.distinct) < maxDistinct {
			v = strings.Clone(v) // the reader may reuse the cell's memory
			p.distinct[v] = struct{}{}
			if len(p.prof.Examples) < 3 {
				p.prof.Examples = append(p.prof.Examples, v)
			}
		} else {
			p.prof.DistinctCapped = true
		}
	}
	for k, c := range candidates {
		if p.alive[k] && !c.fits(v) {
			p.alive[k] = false
		}
	}
	if p.alive[1] || p.alive[2] || p.alive[3] || p.alive[4] { // a number so far
		switch decimalEvidence(v) {
		case '.':
			p.point++
		case ',':
			p.comma++
		case '?':
			p.ambiguous++
		}
	}
	return false
}

// maxFieldName is the schema's limit on a field name, in bytes.
const maxFieldName = 200

// uniqueName returns name, or name with a suffix _2, _3… when a column of
// the same file already took it, shortened to fit the schema's limit, and
// records it as taken.
func uniqueName(name string, taken map[string]bool) string {
	cand := name
	for n := 2; taken[cand]; n++ {
		suffix := "_" + strconv.Itoa(n)
		cand = truncateName(name, maxFieldName-len(suffix)) + suffix
	}
	taken[cand] = true
	return cand
}

// truncateName cuts s to at most n bytes without splitting a character.
func truncateName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// fieldName makes a snake_case field name from a header, at most
// maxFieldName bytes long.
func fieldName(h string, i int) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && isLetter(r) {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
		} else {
			under = true
		}
	}
	if b.Len() == 0 {
		return "column_" + strconv.Itoa(i+1)
	}
	return strings.TrimRight(truncateName(b.String(), maxFieldName), "_")
}

func isLetter(r rune) bool { return strings.ContainsRune("abcdefghijklmnopqrstuvwxyz", r) || r > 0x7f }
