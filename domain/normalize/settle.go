package normalize

import (
	"context"
	"fmt"
	"io"

	"github.com/tabnorm/tabnorm/domain/normalize/coerce"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// Decision is what the engine settled for one field of one file before
// the main pass: its date order and decimal mark, with the evidence
// counted in the file's first records. The caller reports it; passing
// DateOrder and Decimal back as the column's options reproduces the run.
type Decision struct {
	SourceFile string
	Column     string // the source column ("" when unmapped)
	Field      string
	DateOrder  string // DMY, MDY or YMD; "" when the field reads no dates
	// DayFirst and MonthFirst count values only one order reads (31/01,
	// 01/31); DateAmbiguous those both read differently (01/02).
	DayFirst, MonthFirst, DateAmbiguous int
	Decimal                             string // "." or ","; "" when the field is not a number
	// PointVotes and CommaVotes count values whose decimal mark only one
	// reading allows (1.5, 1,234.5; 0,61, 1.234,5); DecimalAmbiguous
	// those both read (12,426 or 1.234).
	PointVotes, CommaVotes, DecimalAmbiguous int
	// Given says the order and mark came from the schema or the options,
	// not from the evidence.
	DateGiven, DecimalGiven bool
}

// settle decides, per field, the date order (date, datetime and year
// fields) and the decimal mark (number and integer fields): a field's
// schema (decimalChar), the column's options, the job's options, else the
// evidence of the column's values in the file's first 10,000 records:
// the majority of values that only one way reads; on a tie month-first and
// ".", with a warning when values the tie leaves ambiguous were seen.
func (w *writer) settle(ctx context.Context, src Source, header []string, to []int) ([]Decision, error) {
	st := w.given(src, header, to)
	if st.need {
		if err := st.gather(ctx, src, to); err != nil {
			return nil, err
		}
	}
	for i := range st.ds {
		if st.dateAuto[i] {
			w.decideDateOrder(src, &st.ds[i])
		}
		if st.decAuto[i] {
			w.decideDecimal(src, &st.ds[i])
		}
	}
	return st.ds, nil
}

// settling is settle's state: each field's decision, and whether its date
// order or decimal mark is still to be decided from the evidence.
type settling struct {
	ds                []Decision
	dateAuto, decAuto []bool
	need              bool // some mapped column needs evidence
}

// given fills in each field's decision from what the schema and the
// options say, and marks what the evidence must decide.
func (w *writer) given(src Source, header []string, to []int) *settling {
	s := w.in.Schema
	st := &settling{ds: make([]Decision, len(s.Fields)), dateAuto: make([]bool, len(s.Fields)), decAuto: make([]bool, len(s.Fields))}
	from := make([]int, len(s.Fields))
	for i := range from {
		from[i] = -1
	}
	for c, f := range to {
		if f >= 0 {
			from[f] = c
		}
	}
	for i, f := range s.Fields {
		d := &st.ds[i]
		d.SourceFile, d.Field = src.FileID, f.Name
		co := ColumnOptions{}
		if from[i] >= 0 {
			d.Column = header[from[i]]
			co = w.in.Options.Columns[d.Column]
		}
		switch f.Type {
		case schema.Date, schema.DateTime, schema.Year:
			d.DateOrder = firstSet(co.DateOrder, w.in.Options.DateOrder)
			d.DateGiven = d.DateOrder != coerce.OrderAuto
			st.dateAuto[i] = !d.DateGiven
		case schema.Number, schema.Integer:
			d.Decimal = firstSet(f.DecimalChar, co.Decimal, w.in.Options.Decimal)
			d.DecimalGiven = d.Decimal != decimalAuto
			st.decAuto[i] = !d.DecimalGiven && f.GroupChar == ""
			if !st.decAuto[i] && !d.DecimalGiven { // the group mark says it
				d.Decimal, d.DecimalGiven = ",", true
				if f.GroupChar != "." {
					d.Decimal = "."
				}
			}
		}
		st.need = st.need || (from[i] >= 0 && (st.dateAuto[i] || st.decAuto[i]))
	}
	return st
}

// gather counts the evidence of the source's first 10,000 records.
func (st *settling) gather(ctx context.Context, src Source, to []int) error {
	r, err := src.Open()
	if err != nil {
		return readerFailure(ctx, err, src.FileID)
	}
	defer func() { _ = r.Close() }()
	for n := range 10_000 {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readerFailure(ctx, err, src.FileID)
		}
		for c, f := range to {
			if f >= 0 && c < len(rec.Cells) {
				st.count(f, rec.Cells[c])
			}
		}
	}
	return nil
}

// count adds one value's evidence to field f's decision.
func (st *settling) count(f int, v string) {
	d := &st.ds[f]
	if st.dateAuto[f] {
		switch coerce.DateEvidence(v) {
		case +1:
			d.DayFirst++
		case -1:
			d.MonthFirst++
		case 2:
			d.DateAmbiguous++
		}
	}
	if st.decAuto[f] {
		switch coerce.DecimalEvidence(trimSpace(v)) {
		case '.':
			d.PointVotes++
		case ',':
			d.CommaVotes++
		case '?':
			d.DecimalAmbiguous++
		}
	}
}

// decideDateOrder takes the order most values read only one way; on a tie
// month-first, with a warning when some values read either way.
func (w *writer) decideDateOrder(src Source, d *Decision) {
	d.DateOrder = coerce.OrderMDY
	if d.DayFirst > d.MonthFirst {
		d.DateOrder = coerce.OrderDMY
	}
	if d.DayFirst == d.MonthFirst && d.DateAmbiguous > 0 {
		w.issue(Issue{SourceFile: src.FileID, Column: d.Column, Field: d.Field, Severity: warning, Code: "ambiguous_date_order",
			Message: fmt.Sprintf("Nothing in column %q decides between day-first and month-first (%d values read either way, %d day-first only, %d month-first only); they were read month-first (MDY). Set date_order, or columns[%q].date_order, if that is wrong.",
				d.Column, d.DateAmbiguous, d.DayFirst, d.MonthFirst, d.Column)})
	}
}

// decideDecimal takes the mark most values read only one way; on a tie
// ".", with a warning when some values read either way.
func (w *writer) decideDecimal(src Source, d *Decision) {
	d.Decimal = "."
	if d.CommaVotes > d.PointVotes {
		d.Decimal = ","
	}
	if d.CommaVotes == d.PointVotes && d.DecimalAmbiguous > 0 {
		w.issue(Issue{SourceFile: src.FileID, Column: d.Column, Field: d.Field, Severity: warning, Code: "ambiguous_decimal_separator",
			Message: fmt.Sprintf("Nothing in column %q decides its decimal mark (%d values such as 12,426 read either way, %d with a decimal point only, %d with a decimal comma only); \".\" was taken, so 12,426 is twelve thousand. Set decimal, or columns[%q].decimal, if that is wrong.",
				d.Column, d.DecimalAmbiguous, d.PointVotes, d.CommaVotes, d.Column)})
	}
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
