package export

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// ParquetOptions tune a Parquet file; the zero value is the defaults.
type ParquetOptions struct {
	// RowGroupRows bounds a row group (0: 64Ki rows): the writer holds one
	// row group's pages in memory before it writes them.
	RowGroupRows int64
}

// Physical column kinds a schema type is written as.
const (
	kindString = iota
	kindInt64
	kindDouble
	kindDecimal
	kindBoolean
	kindDate
	kindTimestamp
)

// parquetZstd is the pages' codec (WriteRowsParquet).
var parquetZstd = zstd.Codec{Level: zstd.SpeedFastest}

// decimalPrecision is the widest DECIMAL written: 16 bytes hold 38 digits.
const decimalPrecision = 38

// ColumnPlan is what a first pass over the rows decided for one column.
type ColumnPlan struct {
	kind     int
	scale    int  // a DECIMAL's digits after the point
	notInt64 bool // an integer past int64
	inexact  bool // a number a double does not hold exactly
	maxInt   int  // most digits before the point
	asText   bool // a value the column's type cannot hold: text
}

// observe widens a column's plan for one value.
func (p *ColumnPlan) observe(v any) {
	if v == nil {
		return
	}
	switch p.kind {
	case kindInt64, kindDouble:
		n, ok := v.(json.Number)
		if !ok || strings.ContainsAny(string(n), "eE") && !exactInDouble(string(n)) {
			p.asText = true
			return
		}
		_, scale, intDigits := significantDigits(string(n))
		if p.kind == kindInt64 {
			if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
				p.notInt64 = true
			}
		} else if !exactInDouble(string(n)) {
			p.inexact = true
		}
		p.scale, p.maxInt = max(p.scale, scale), max(p.maxInt, intDigits)
	case kindBoolean:
		_, ok := v.(bool)
		p.asText = p.asText || !ok
	case kindDate, kindTimestamp:
		s, ok := v.(string)
		if !ok {
			p.asText = true
			return
		}
		p.observeText(String, s)
	}
}

// observeText widens a column's plan for one cell read in place: what
// observe does for the value that cell decodes to.
func (p *ColumnPlan) observeText(kind Kind, text string) {
	switch {
	case kind == Null:
		return
	case p.kind == kindInt64 || p.kind == kindDouble || p.kind == kindDecimal:
		if kind != Number {
			p.asText = true
			return
		}
		p.observe(json.Number(text))
	case p.kind == kindBoolean:
		p.asText = p.asText || kind != Bool
	case p.kind == kindDate:
		if _, err := parseDateText(text); kind != String || err != nil {
			p.asText = true
		}
	case p.kind == kindTimestamp:
		_, exact, err := parseTimestampText(text)
		if kind != String || err != nil || !exact {
			p.asText = true // unreadable, or finer than the microseconds kept
		}
	}
}

// settle turns what was observed into the column's final kind.
func (p *ColumnPlan) settle() {
	switch {
	case p.asText:
		p.kind = kindString
	case p.kind == kindInt64 && p.notInt64, p.kind == kindDouble && p.inexact:
		if p.maxInt+p.scale > decimalPrecision {
			p.kind = kindString
			return
		}
		p.kind = kindDecimal
	}
	if p.kind != kindDecimal {
		p.scale = 0
	}
}

func planOf(t schema.Type) ColumnPlan {
	switch t {
	case schema.Integer, schema.Year:
		return ColumnPlan{kind: kindInt64}
	case schema.Number:
		return ColumnPlan{kind: kindDouble}
	case schema.Boolean:
		return ColumnPlan{kind: kindBoolean}
	case schema.Date:
		return ColumnPlan{kind: kindDate}
	case schema.DateTime:
		return ColumnPlan{kind: kindTimestamp}
	}
	return ColumnPlan{kind: kindString}
}

// PlanParquet reads the rows once and decides each column's Parquet type:
// integers INT64, or DECIMAL(38,0) when a value is past int64; numbers
// DOUBLE when every value has at most 15 significant digits, else
// DECIMAL(38, the most digits after the point seen); either as text when
// a value needs more than 38 digits. Dates DATE, datetimes TIMESTAMP(µs,
// UTC), booleans BOOLEAN, the rest text.
func PlanParquet(rows io.Reader, cols []Column) ([]ColumnPlan, error) {
	plans := make([]ColumnPlan, len(cols))
	for i, c := range cols {
		plans[i] = planOf(c.Type)
	}
	rr := newRowReader(rows, cols)
	for {
		inPlace, err := rr.read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read rows: %w", err)
		}
		for i := range cols {
			if inPlace {
				plans[i].observeText(rr.line.Kind(i), rr.line.Text(i))
			} else {
				plans[i].observe(rr.vals[i])
			}
		}
	}
	for i := range plans {
		plans[i].settle()
	}
	return plans, nil
}

// orderedGroup is a group whose columns keep the schema's order (a
// parquet.Group sorts them by name).
type orderedGroup struct {
	parquet.Group
	names []string
}

func (g orderedGroup) Fields() []parquet.Field {
	byName := map[string]parquet.Field{}
	for _, f := range g.Group.Fields() {
		byName[f.Name()] = f
	}
	fields := make([]parquet.Field, len(g.names))
	for i, n := range g.names {
		fields[i] = byName[n]
	}
	return fields
}

func nodeOf(p ColumnPlan) parquet.Node {
	switch p.kind {
	case kindInt64:
		return parquet.Int(64)
	case kindDouble:
		return parquet.Leaf(parquet.DoubleType)
	case kindDecimal:
		return parquet.Decimal(p.scale, decimalPrecision, parquet.FixedLenByteArrayType(16))
	case kindBoolean:
		return parquet.Leaf(parquet.BooleanType)
	case kindDate:
		return parquet.Date()
	case kindTimestamp:
		return parquet.TimestampAdjusted(parquet.Microsecond, true)
	}
	return parquet.String()
}

// parquetSchema is the file's schema: one column a field, in order,
// optional unless the field is required.
func parquetSchema(cols []Column, plans []ColumnPlan) *parquet.Schema {
	g := orderedGroup{Group: parquet.Group{}, names: make([]string, len(cols))}
	for i, c := range cols {
		n := nodeOf(plans[i])
		if !c.Required {
			n = parquet.Optional(n)
		}
		g.Group[c.Name] = n
		g.names[i] = c.Name
	}
	return parquet.NewSchema("rows", g)
}

// WriteRowsParquet writes the rows (read again from rows) as a Parquet
// file with the columns plans decided, ZSTD-compressed at its fastest
// level, in row groups of opt.RowGroupRows.
//
// The fastest level: on the 1M-row contacts run's rows, zstd's default
// level took 30 % of the file's CPU for a file 10 % smaller (19.5 MB
// against 21.6 MB), the trade a download does not want.
func WriteRowsParquet(out io.Writer, rows io.Reader, cols []Column, plans []ColumnPlan, opt ParquetOptions) error {
	groupRows := opt.RowGroupRows
	if groupRows <= 0 {
		groupRows = 64 << 10
	}
	w := parquet.NewWriter(out, parquetSchema(cols, plans), parquet.Compression(&parquetZstd),
		parquet.MaxRowsPerRowGroup(groupRows), parquet.CreatedBy("tabnorm", "", ""))
	// The rows are read and converted in a goroutine of their own while
	// the writer encodes and compresses the batch before, in order: on two
	// cores the file takes the longer of the two, not their sum. A batch's
	// rows share one array of values, given back once the writer has
	// copied the batch into its pages; the texts they point at are the
	// lines' own strings, which nobody changes.
	const batchRows, arrays = 256, 3
	free, batches, done := make(chan []parquet.Value, arrays), make(chan parquetBatch, arrays-1), make(chan struct{})
	for range arrays {
		free <- make([]parquet.Value, batchRows*len(cols))
	}
	go func() {
		defer close(batches)
		readParquetBatches(rows, cols, plans, batchRows, free, batches, done)
	}()
	var err error
	for b := range batches {
		if err = b.err; err != nil {
			break
		}
		if _, err = w.WriteRows(b.rows); err != nil {
			break
		}
		free <- b.values
	}
	close(done)
	for range batches { // the reader ends at done: wait for it
	}
	if err != nil {
		return err
	}
	return w.Close()
}

// parquetBatch is up to a batch of rows read, in values, or the error
// that ended the reading.
type parquetBatch struct {
	rows   []parquet.Row
	values []parquet.Value
	err    error
}

// readParquetBatches reads the rows into batches until the end, an error
// (sent as the last batch) or done.
func readParquetBatches(rows io.Reader, cols []Column, plans []ColumnPlan, batchRows int,
	free chan []parquet.Value, batches chan<- parquetBatch, done <-chan struct{}) {
	rr := newRowReader(rows, cols)
	send := func(b parquetBatch) bool {
		select {
		case batches <- b:
			return true
		case <-done:
			return false
		}
	}
	var n int64
	for {
		var values []parquet.Value
		select {
		case values = <-free:
		case <-done:
			return
		}
		batch := make([]parquet.Row, 0, batchRows)
		for len(batch) < batchRows {
			inPlace, err := rr.read()
			if err == io.EOF {
				send(parquetBatch{rows: batch, values: values})
				return
			}
			if err != nil {
				send(parquetBatch{err: fmt.Errorf("read rows: %w", err)})
				return
			}
			n++
			row := parquet.Row(values[len(batch)*len(cols) : (len(batch)+1)*len(cols)])
			if err := rr.parquetRow(row, inPlace, cols, plans); err != nil {
				send(parquetBatch{err: fmt.Errorf("row %d, %w", n, err)})
				return
			}
			batch = append(batch, row)
		}
		if !send(parquetBatch{rows: batch, values: values}) {
			return
		}
	}
}

// parquetRow converts the row just read into row, a value a column.
func (rr *rowReader) parquetRow(row parquet.Row, inPlace bool, cols []Column, plans []ColumnPlan) error {
	for i, c := range cols {
		var v parquet.Value
		var err error
		if inPlace {
			v, err = parquetValueText(rr.line.Kind(i), rr.line.Text(i), plans[i])
		} else {
			v, err = parquetValue(rr.vals[i], plans[i])
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		def := 0
		if !c.Required && !v.IsNull() {
			def = 1
		}
		row[i] = v.Level(0, def, i)
	}
	return nil
}

// parquetValue converts one JSON value to its column's kind. The plan was
// made from the same values, so a failure here is a changed blob.
func parquetValue(v any, p ColumnPlan) (parquet.Value, error) {
	if v == nil {
		return parquet.NullValue(), nil
	}
	switch p.kind {
	case kindInt64:
		i, err := strconv.ParseInt(string(v.(json.Number)), 10, 64)
		return parquet.Int64Value(i), err
	case kindDouble:
		f, err := strconv.ParseFloat(string(v.(json.Number)), 64)
		return parquet.DoubleValue(f), err
	case kindDecimal:
		b, err := decimalBytes(string(v.(json.Number)), p.scale)
		return parquet.FixedLenByteArrayValue(b), err
	case kindBoolean:
		return parquet.BooleanValue(v.(bool)), nil
	case kindDate, kindTimestamp:
		return parquetValueText(String, v.(string), p)
	}
	switch x := v.(type) {
	case string:
		return parquet.ByteArrayValue([]byte(x)), nil
	case json.Number:
		return parquet.ByteArrayValue([]byte(x)), nil
	case bool:
		return parquet.ByteArrayValue([]byte(strconv.FormatBool(x))), nil
	}
	b, err := json.Marshal(v)
	return parquet.ByteArrayValue(b), err
}

// parquetValueText converts one cell read in place to its column's kind:
// what parquetValue gives for the value that cell decodes to. A text is
// passed as the bytes of its string, which the writer copies and nobody
// changes.
func parquetValueText(kind Kind, text string, p ColumnPlan) (parquet.Value, error) {
	if kind == Null {
		return parquet.NullValue(), nil
	}
	switch p.kind {
	case kindInt64:
		i, err := strconv.ParseInt(text, 10, 64)
		return parquet.Int64Value(i), err
	case kindDouble:
		f, err := strconv.ParseFloat(text, 64)
		return parquet.DoubleValue(f), err
	case kindDecimal:
		b, err := decimalBytes(text, p.scale)
		return parquet.FixedLenByteArrayValue(b), err
	case kindBoolean:
		return parquet.BooleanValue(text == "true"), nil
	case kindDate:
		days, err := parseDateText(text)
		return parquet.Int32Value(int32(days)), err //nolint:gosec // dates are years 1-9999: days fit int32
	case kindTimestamp:
		micros, _, err := parseTimestampText(text)
		return parquet.Int64Value(micros), err
	}
	return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(text), len(text))), nil
}

// decimalBytes is a decimal text's unscaled value at scale, as the 16-byte
// big-endian two's complement a DECIMAL(38) column holds.
func decimalBytes(s string, scale int) ([]byte, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	if len(frac) > scale {
		return nil, fmt.Errorf("%s has more than %d digits after the point", s, scale)
	}
	u, ok := new(big.Int).SetString(intPart+frac+strings.Repeat("0", scale-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("%q is not a decimal", s)
	}
	if neg {
		u.Neg(u)
	}
	out := make([]byte, 16)
	if u.Sign() >= 0 {
		u.FillBytes(out)
		return out, nil
	}
	// two's complement: 2^128 + u
	m := new(big.Int).Lsh(big.NewInt(1), 128)
	m.Add(m, u).FillBytes(out)
	return out, nil
}
