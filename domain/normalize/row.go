package normalize

import (
	"fmt"
	"hash/maphash"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/table"
)

// process coerces a batch's records into rows, one record at a time: the
// reader's issues of the record, its cells, the rules stage's computed
// values, the required fields, the rules, then the keys checkUnique
// compares and the row's JSON.
func (p *plan) process(b *batch, seed maphash.Seed) {
	b.json = b.json[:0]
	b.rows = b.rows[:0]
	if need := len(b.recs) * len(p.uniq); cap(b.hashes) < need {
		b.hashes = make([]uint64, need)
	}
	b.hashes = b.hashes[:len(b.recs)*len(p.uniq)]
	var h maphash.Hash
	h.SetSeed(seed)
	// kinds: 0 null, 1 string, 2 raw, 3 string that needs no escaping, -1
	// null with its error reported (the row is rejected)
	rs := rowState{p: p, b: b, vals: make([]string, len(p.columns)), kinds: make([]int8, len(p.columns))}
	for i := range b.recs {
		rec := &b.recs[i]
		b.sc.Reset() // the previous row's values are written out
		ro := rowOut{number: int64(rec.Number), ok: true, start: len(b.json), end: len(b.json)}
		if !p.readerIssues(rec, &ro) {
			b.rows = append(b.rows, ro)
			continue
		}
		var ed []cellEdit
		if p.edits != nil {
			ed = p.edits[ro.number]
		}
		ed = p.replaced(ro.number, rec.Cells, ed)
		if b.hooks.edits != nil {
			ed = withHookEdits(ed, b.hooks.edits[ro.number])
		}
		clear(rs.kinds)
		p.coerceCells(rec, ed, &ro, rs.vals, rs.kinds, &b.sc)
		if p.stage != nil {
			rs.cells, rs.ro = rec.Cells, &ro
			if ed != nil {
				rs.cells = p.editedCells(rec.Cells, ed)
			}
			p.stage.compute(&rs)
		}
		p.requireValues(rec.Number, &ro, rs.kinds)
		if p.stage != nil && ro.ok {
			p.stage.check(&rs)
		}
		if ro.ok {
			ro.uniques = b.hashes[len(b.rows)*len(p.uniq) : (len(b.rows)+1)*len(p.uniq)]
			p.hashKeys(&h, &ro, rs.vals, rs.kinds)
		}
		if ro.ok || p.keepRejected {
			b.json = p.appendRow(b.json, rec.Cells, rs.vals, rs.kinds)
			ro.end = len(b.json)
		}
		b.rows = append(b.rows, ro)
	}
}

// readerIssues adds the issues the reader found in a record: a record it
// could not read at all (false: there is nothing more to do with it),
// cells it read with a warning, and cells that do not match the header.
func (p *plan) readerIssues(rec *table.Record, ro *rowOut) bool {
	if rec.RowIssue != nil {
		ro.ok = false
		ro.issues = append(ro.issues, p.issue(rec.Number, rec.RowIssue.Column, -1, "error", rec.RowIssue.Code, rec.RowIssue.Message, &rec.RowIssue.Value))
		return false
	}
	for _, ci := range rec.CellIssues {
		field := -1
		if ci.Column >= 0 && ci.Column < len(p.to) {
			field = p.to[ci.Column]
		}
		v := ci.Value
		ro.issues = append(ro.issues, p.issue(rec.Number, ci.Column, field, warning, ci.Code, ci.Message, &v))
	}
	if len(rec.Cells) != len(p.header) {
		ro.issues = append(ro.issues, p.ragged(rec))
		if ro.issues[len(ro.issues)-1].Severity == "error" {
			ro.ok = false
		}
	}
	return true
}

// coerceCells coerces each mapped cell of a record (or its edit) into
// vals, saying in kinds how each is written; a refused value is an issue
// and stays null. The per-cell path: coerce.Column.Value writes into sc.
func (p *plan) coerceCells(rec *table.Record, ed []cellEdit, ro *rowOut, vals []string, kinds []int8, sc *coerce.Scratch) {
	for c, f := range p.to {
		if f < 0 {
			continue
		}
		s, present, edited := "", c < len(rec.Cells), false
		if present {
			s = rec.Cells[c]
		}
		if ed != nil { // an edit, instead of the file's value and value_map
			if e := editOf(ed, f); e != nil {
				s, present, edited = e.value, !e.null, true
				if !e.hook && !e.replaced {
					ro.edited++
				}
			}
		}
		if !present {
			continue
		}
		orig := s // as the file (or the edit) has it, for an issue
		if p.opts.Trim {
			s = trimSpace(s)
		}
		if !edited && p.values != nil && p.values[f] != nil { // value_map, before coercion
			s = p.values[f].apply(s)
		}
		if p.isMissing(s) {
			continue
		}
		col := &p.columns[f]
		v, prob := col.Value(s, sc)
		if prob != nil && p.refused(rec.Number, c, f, orig, prob, ro, kinds) {
			continue // the cell stays null
		}
		vals[f] = v
		kinds[f] = writtenAs(col)
	}
}

// refused reports the problem of a cell's value (orig, as the file or the
// edit has it), and says whether the value is refused: then the cell is
// null, and its row rejected unless on_error null_value spares it.
func (p *plan) refused(row, c, f int, orig string, prob *coerce.Problem, ro *rowOut, kinds []int8) bool {
	col := &p.columns[f]
	sev := prob.Severity
	if sev != warning && p.opts.OnError == "null_value" && !col.Field.Constraints.Required {
		sev = warning
		prob.Message += " The value was set to null."
	} else if sev != warning {
		sev = "error"
		ro.ok = false
	}
	ro.issues = append(ro.issues, p.issue(row, c, f, sev, prob.Code, prob.Message, &orig))
	if prob.Severity == warning {
		return false // the value changed, and is kept
	}
	if col.Field.Constraints.Required {
		kinds[f] = -1 // reported: not again as required
	}
	return true
}

// writtenAs is how a column's values are written in a row: 2 as they are
// (numbers, booleans), 3 quoted without escaping, 1 quoted and escaped.
func writtenAs(col *coerce.Column) int8 {
	switch {
	case col.Kind == coerce.KindRaw:
		return 2
	case col.Plain:
		return 3
	}
	return 1
}

// requireValues rejects a row without a value for a required field (one
// whose value was refused is reported already).
func (p *plan) requireValues(row int, ro *rowOut, kinds []int8) {
	for f := range p.columns {
		if kinds[f] == 0 && p.columns[f].Field.Constraints.Required {
			ro.ok = false
			ro.issues = append(ro.issues, p.issue(row, p.columnOf(f), f, "error", "required", "A value is required.", nil))
		}
	}
}

// hashKeys hashes a kept row's unique values into ro.uniques (0 for a
// null) and its primary key, for checkUnique.
func (p *plan) hashKeys(h *maphash.Hash, ro *rowOut, vals []string, kinds []int8) {
	for k, f := range p.uniq {
		var hv uint64
		if kinds[f] != 0 {
			h.Reset()
			h.WriteString(vals[f])
			hv = h.Sum64() | 1
		}
		ro.uniques[k] = hv
	}
	if len(p.pk) > 0 {
		h.Reset()
		ro.hasPK = true
		for _, f := range p.pk {
			if kinds[f] == 0 {
				ro.hasPK = false
			}
			h.WriteString(vals[f])
			h.WriteByte(0)
		}
		ro.pk = h.Sum64() | 1
	}
}

// ragged is the issue of a record whose cells do not match the header: a
// warning when nothing is lost or shifted (missing trailing cells are
// missing values; extra cells are empty, as after a trailing delimiter),
// an error when extra cells hold data or ragged_rows is "reject".
func (p *plan) ragged(rec *table.Record) Issue {
	n, h := len(rec.Cells), len(p.header)
	sev, msg := warning, ""
	if n < h {
		msg = fmt.Sprintf("The record has %d cells; the header has %d. The missing cells were read as missing values.", n, h)
	} else {
		msg = fmt.Sprintf("The record has %d cells; the header has %d. The extra cells are empty and were dropped.", n, h)
		for _, c := range rec.Cells[h:] {
			if trimSpace(c) != "" {
				sev, msg = "error", fmt.Sprintf("The record has %d cells; the header has %d, and the extra cells hold data.", n, h)
				break
			}
		}
	}
	if p.opts.RaggedRows == raggedReject && sev != "error" {
		sev, msg = "error", fmt.Sprintf("The record has %d cells; the header has %d (ragged_rows is reject).", n, h)
	}
	return p.issue(rec.Number, -1, -1, sev, "ragged_row", msg, nil)
}

// appendRow appends a valid row's JSON line. (The slice is a local
// variable here, not the batch's field, so appending keeps its length in a
// register: the keys and values are a dozen appends a row.)
func (p *plan) appendRow(js []byte, cells, vals []string, kinds []int8) []byte {
	if len(p.columns) == 0 {
		js = append(js, '{')
	}
	for f, key := range p.fieldKey {
		js = append(js, key...)
		switch kinds[f] {
		case 0, -1:
			js = append(js, "null"...)
		case 1:
			js = appendJSONString(js, vals[f])
		case 2:
			js = append(js, vals[f]...)
		default:
			js = append(js, '"')
			js = append(js, vals[f]...)
			js = append(js, '"')
		}
	}
	if p.opts.KeepUnmapped {
		js = append(js, `,"_extra":{`...)
		first := true
		for c, f := range p.to {
			if f >= 0 || c >= len(cells) {
				continue
			}
			if !first {
				js = append(js, ',')
			}
			first = false
			js = appendJSONString(js, p.header[c])
			js = append(js, ':')
			js = appendJSONString(js, cells[c])
		}
		js = append(js, '}')
	}
	return append(js, '}', '\n')
}

// isMissing compares with the schema's few missing values (a map costs
// more than a short scan), only when the first byte could start one.
func (p *plan) isMissing(s string) bool {
	if len(s) > p.maxMiss {
		return false
	}
	if len(s) == 0 {
		return p.missEmpty
	}
	if !p.missFirst[s[0]] {
		return false
	}
	for _, m := range p.missing {
		if len(m) == len(s) && m == s {
			return true
		}
	}
	return false
}

func (p *plan) columnOf(field int) int {
	for c, f := range p.to {
		if f == field {
			return c
		}
	}
	return -1
}

func (p *plan) issue(row, col, field int, severity, code, message string, value *string) Issue {
	is := Issue{Row: int64(row), SourceFile: p.fileID, Severity: severity, Code: code, Message: message, Value: value}
	if col >= 0 && col < len(p.header) {
		is.Column = p.header[col]
	}
	if field >= 0 {
		is.Field = p.columns[field].Field.Name
	}
	return is
}
