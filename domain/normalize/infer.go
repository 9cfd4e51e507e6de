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
	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
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
	// Currency is the one currency the values of a number column carried
	// beside their amounts (EUR 12); Currencies lists every one seen, so
	// a column of several has Currency "" and Currencies [EUR USD].
	Currency   string
	Currencies []string
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
	{schema.Boolean, schema.Default, func(s string) bool { _, ok := coerce.ParseBoolean(s, nil, nil); return ok && !coerce.AllDigits(s) }, ""},
	{schema.Integer, schema.Default, func(s string) bool { return inferInteger(s, ".") }, "."},
	{schema.Integer, schema.Default, func(s string) bool { return inferInteger(s, ",") }, ","},
	{schema.Number, schema.Default, func(s string) bool { return inferNumber(s, ".") }, "."},
	{schema.Number, schema.Default, func(s string) bool { return inferNumber(s, ",") }, ","},
	{schema.Date, schema.Default, func(s string) bool { _, ok := coerce.ParseDate(s, coerce.OrderMDY); return ok || isDMYOnly(s) }, ""},
	{schema.DateTime, schema.Default, func(s string) bool {
		_, tp := coerce.SplitDateTime(s)
		_, _, ok := coerce.ParseDateTime(s, coerce.OrderMDY)
		return ok && tp != ""
	}, ""},
	{schema.String, schema.Email, func(s string) bool { _, ok := coerce.ParseEmail(new(coerce.Scratch), s); return ok }, ""},
	{schema.String, schema.UUID, func(s string) bool { _, ok := coerce.ParseUUID(s); return ok }, ""},
	{schema.String, schema.URI, func(s string) bool { _, ok := coerce.ParseURI(s); return ok && strings.Contains(s, "://") }, ""},
	{schema.String, schema.Country, func(s string) bool { _, ok := coerce.ParseCountry(s); return ok && len(s) > 1 }, ""},
}

// inferNumber: a number with the decimal mark dec, unless its digits have
// a leading zero (an identifier, such as 00501, stays text).
func inferNumber(s, dec string) bool {
	t := strings.TrimPrefix(s, "-")
	if len(t) > 1 && t[0] == '0' && coerce.IsDigit(t[1]) {
		return false
	}
	_, ok := coerce.ParseDecimal(new(coerce.Scratch), s, dec, "")
	return ok
}

// inferInteger: a number without a fraction or an exponent.
func inferInteger(s, dec string) bool {
	if !inferNumber(s, dec) {
		return false
	}
	v, _ := coerce.ParseDecimal(new(coerce.Scratch), s, dec, "")
	return !strings.ContainsAny(v, ".eE") && len(strings.TrimPrefix(v, "-")) <= 18
}

func isDMYOnly(s string) bool { _, ok := coerce.ParseDate(s, coerce.OrderDMY); return ok }

type profiler struct {
	// decimal mark evidence (coerce.DecimalEvidence)
	point, comma, ambiguous int
	prof                    ColumnProfile
	distinct                map[string]struct{}
	alive                   []bool // per candidate: every value so far fits
	currencies              map[string]bool
}

// runInfer profiles the first sample_rows records of each source and
// proposes a schema whose fields are the columns.
func runInfer(ctx context.Context, in Input, _ Output) (Result, error) {
	inf := &inference{byName: map[string]*profiler{}, seenMissing: map[string]bool{"": true},
		missing: map[string]bool{"": true, "na": true, "n/a": true, "null": true, "none": true, "-": true, "nan": true}}
	for _, src := range in.Sources {
		if err := inf.profile(ctx, src, in.Options.SampleRows); err != nil {
			return inf.res, err
		}
	}
	if len(inf.order) == 0 {
		return inf.res, fail(domain.CodeNoColumns, "The file has no columns: there is nothing to infer a schema from.")
	}
	if len(inf.order) > schema.MaxFields {
		return inf.res, fail(domain.CodeTooManyColumns, "The files have %d distinct columns together; a schema holds at most %d.", len(inf.order), schema.MaxFields)
	}
	s := inf.propose()
	// The proposal must itself be a valid schema; a name or an alias it
	// cannot hold is a bug here, never a schema the client gets.
	if _, err := schema.Parse(s.JSON()); err != nil {
		return inf.res, fail(domain.CodeInternalError, "The inferred schema is not valid: %v", err)
	}
	inf.res.InferredSchema = s
	return inf.res, nil
}

// inference is infer's state across its sources: a profiler per field,
// by name and in the order the columns came.
type inference struct {
	res     Result
	byName  map[string]*profiler
	order   []string
	missing map[string]bool // lower-case tokens read as a missing value
	// seenMissing are the tokens treated as missing, as they were written:
	// the proposed missingValues, which the engine compares exactly (after
	// trimming, as here), so the schema reads the file as infer did.
	seenMissing map[string]bool
}

// profile reads up to sampleRows records of one source into the
// profilers of its columns.
func (inf *inference) profile(ctx context.Context, src Source, sampleRows int) error {
	r, err := src.Open()
	if err != nil {
		return readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	if d, ok := r.(table.Describer); ok {
		inf.res.Detected = append(inf.res.Detected, FileDetection{SourceFile: src.FileID, Detection: d.Detection()})
	}
	profs := inf.profilers(r.Header(), src.FileID)
	for n := 0; n < sampleRows; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return readerFailure(ctx, err, src.FileID)
		}
		inf.res.Progress.RowsRead++
		for i, p := range profs {
			v := ""
			if i < len(rec.Cells) {
				v = trimSpace(rec.Cells[i])
			}
			if p.observe(v, inf.missing) && !inf.seenMissing[v] && len(inf.seenMissing) < maxMissingTokens {
				inf.seenMissing[strings.Clone(v)] = true
			}
		}
	}
	inf.res.Progress.BytesRead += r.BytesRead()
	return nil
}

// profilers returns the profiler of each column of a source's header,
// making those of names not seen in an earlier source, and maps each
// column to its field.
func (inf *inference) profilers(header []string, fileID string) []*profiler {
	profs := make([]*profiler, len(header))
	used := map[string]bool{}
	for i, h := range header {
		name := uniqueName(fieldName(h, i), used)
		p, ok := inf.byName[name]
		if !ok {
			p = &profiler{prof: ColumnProfile{Column: h, Field: name}, distinct: map[string]struct{}{}, alive: make([]bool, len(candidates))}
			for k := range p.alive {
				p.alive[k] = true
			}
			inf.byName[name] = p
			inf.order = append(inf.order, name)
		}
		profs[i] = p
		inf.res.Mapping = append(inf.res.Mapping, match.Entry{SourceFile: fileID, SourceColumn: h, Field: name, Method: match.MethodNormalized, Confidence: 1})
	}
	return profs
}

// propose turns the profiles into the proposed schema, and fills in the
// result's profile.
func (inf *inference) propose() *schema.Schema {
	s := &schema.Schema{MissingValues: slices.Sorted(maps.Keys(inf.seenMissing))}
	for _, name := range inf.order {
		p := inf.byName[name]
		dec := p.settle()
		f := schema.Field{Name: name, Type: p.prof.Type, Format: p.prof.Format}
		if (f.Type == schema.Number || f.Type == schema.Integer) && p.point+p.comma+p.ambiguous > 0 {
			f.DecimalChar = dec // the mark infer read with, for the engine to read with
		}
		if match.HeaderKey(p.prof.Column) != match.HeaderKey(name) || p.prof.Column != name {
			f.Aliases = []string{p.prof.Column}
		}
		s.Fields = append(s.Fields, f)
		inf.res.Profile = append(inf.res.Profile, p.prof)
	}
	return s
}

// settle sets the profile's type and format, the first candidate every
// value fitted with the decimal mark most values used, and its distinct
// count; it returns that mark.
func (p *profiler) settle() (decimal string) {
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
	if p.prof.Type == schema.Number || p.prof.Type == schema.Integer {
		p.prof.Currencies = slices.Sorted(maps.Keys(p.currencies))
		if len(p.prof.Currencies) == 1 {
			p.prof.Currency = p.prof.Currencies[0]
		}
	}
	return dec
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
		if c := coerce.CurrencyOf(v); c != "" {
			if p.currencies == nil {
				p.currencies = map[string]bool{}
			}
			p.currencies[c] = true
		}
		switch coerce.DecimalEvidence(v) {
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
