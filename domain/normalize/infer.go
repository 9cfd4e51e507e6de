package normalize

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/tabnorm/tabnorm/domain/schema"
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
	typ    schema.Type
	format schema.Format
	fits   func(string) bool
}

var candidates = []candidate{
	{schema.Boolean, schema.Default, func(s string) bool { _, ok := parseBoolean(s, nil, nil); return ok && !allDigits(s) }},
	{schema.Integer, schema.Default, func(s string) bool { return plainInteger(s) }},
	{schema.Number, schema.Default, func(s string) bool { return plainNumber(s) }},
	{schema.Date, schema.Default, func(s string) bool { _, ok := parseDate(s, orderMDY); return ok || isDMYOnly(s) }},
	{schema.DateTime, schema.Default, func(s string) bool {
		_, tp := splitDateTime(s)
		_, _, ok := parseDateTime(s, orderMDY)
		return ok && tp != ""
	}},
	{schema.String, schema.Email, func(s string) bool { _, ok := parseEmail(new(scratch), s); return ok }},
	{schema.String, schema.UUID, func(s string) bool { _, ok := parseUUID(s); return ok }},
	{schema.String, schema.URI, func(s string) bool { _, ok := parseURI(s); return ok && strings.Contains(s, "://") }},
	{schema.String, schema.Country, func(s string) bool { _, ok := parseCountry(s); return ok && len(s) > 1 }},
}

// plainInteger: digits with an optional sign; a leading zero makes it an
// identifier (a string), so "007" stays text.
func plainInteger(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if !allDigits(t) || len(t) > 18 {
		return false
	}
	return t == "0" || t[0] != '0'
}

func plainNumber(s string) bool {
	if plainInteger(s) {
		return true
	}
	t := strings.TrimPrefix(s, "-")
	i := strings.IndexByte(t, '.')
	if i <= 0 || i == len(t)-1 {
		return false
	}
	ip, fp := t[:i], t[i+1:]
	return allDigits(ip) && allDigits(fp) && (ip == "0" || ip[0] != '0')
}

func isDMYOnly(s string) bool { _, ok := parseDate(s, orderDMY); return ok }

type profiler struct {
	prof     ColumnProfile
	distinct map[string]struct{}
	alive    []bool // per candidate: every value so far fits
}

// runInfer profiles the first sample_rows records of each source and
// proposes a schema whose fields are the columns.
func runInfer(ctx context.Context, in Input, out Output) (Result, error) {
	var res Result
	byName := map[string]*profiler{}
	var order []string
	missing := map[string]bool{"": true, "na": true, "n/a": true, "null": true, "none": true, "-": true, "nan": true}
	for _, src := range in.Sources {
		r, err := src.Open()
		if err != nil {
			return res, readerFailure(err, src.FileID)
		}
		header := r.Header()
		profs := make([]*profiler, len(header))
		used := map[string]int{}
		for i, h := range header {
			name := fieldName(h, i)
			if used[name]++; used[name] > 1 { // a repeated header in this file
				name += "_" + strconv.Itoa(used[name])
			}
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
				r.Close()
				return res, ctx.Err()
			}
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				r.Close()
				return res, readerFailure(err, src.FileID)
			}
			res.Progress.RowsRead++
			for i, p := range profs {
				v := ""
				if i < len(rec.Cells) {
					v = trimSpace(rec.Cells[i])
				}
				p.observe(v, missing)
			}
		}
		res.Progress.BytesRead += r.BytesRead()
		r.Close()
	}
	s := &schema.Schema{MissingValues: []string{"", "NA", "N/A", "null", "-"}}
	for _, name := range order {
		p := byName[name]
		p.prof.Type, p.prof.Format = schema.String, schema.Default
		if p.prof.Rows > p.prof.NullCount {
			for k, c := range candidates {
				if p.alive[k] {
					p.prof.Type, p.prof.Format = c.typ, c.format
					break
				}
			}
		}
		p.prof.DistinctCount = int64(len(p.distinct))
		f := schema.Field{Name: name, Type: p.prof.Type, Format: p.prof.Format}
		if NormalizeHeader(p.prof.Column) != NormalizeHeader(name) || p.prof.Column != name {
			f.Aliases = []string{p.prof.Column}
		}
		s.Fields = append(s.Fields, f)
		res.Profile = append(res.Profile, p.prof)
	}
	if len(s.Fields) > 0 {
		// The proposal must itself be a valid schema.
		if _, err := schema.Parse(s.JSON()); err == nil {
			res.InferredSchema = s
		}
	}
	return res, nil
}

func (p *profiler) observe(v string, missing map[string]bool) {
	p.prof.Rows++
	if missing[strings.ToLower(v)] {
		p.prof.NullCount++
		return
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
}

// fieldName makes a snake_case field name from a header.
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
	return b.String()
}

func isLetter(r rune) bool { return strings.ContainsRune("abcdefghijklmnopqrstuvwxyz", r) || r > 0x7f }
