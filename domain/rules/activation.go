package rules

import (
	"unsafe"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// Activation is the row an expression reads. One is made per worker and
// reused for every row: Set and SetSource overwrite the previous row's
// values without allocating. Values are kept unboxed for compiled
// expressions (fast.go) and boxed for CEL only when CEL reads them, and
// the source map is filled only when CEL reads it.
type Activation struct {
	names map[string]int // "row.<field>" → field index
	vals  []Value
	boxed []ref.Val // the CEL values of vals read this row; nil: not yet
	// scratch holds compiled expressions' intermediate results, and text
	// the strings they make for the current row (NewRow empties it).
	scratch []Value
	text    []byte

	// The current row's source: its header, its cells, the columns CEL
	// reads (nil: all), and the column of each of the Env's constant
	// source keys (-1: no such header).
	header, cells []string
	columns       []int
	keyCols       []int
	filled        bool // cellMap holds this row
	cellMap       map[string]string
	source        traits.Mapper // a view of cellMap
}

var _ interpreter.Activation = (*Activation)(nil)

// NewActivation makes an activation for the environment's fields, all null.
func (e *Env) NewActivation(nFields int) *Activation {
	a := &Activation{names: make(map[string]int, len(e.fields)), vals: make([]Value, nFields), boxed: make([]ref.Val, nFields),
		scratch: make([]Value, e.slots), cellMap: map[string]string{}}
	for name, i := range e.fields {
		a.names["row."+name] = i
	}
	a.source = types.NewStringStringMap(types.DefaultTypeAdapter, a.cellMap)
	return a
}

// NewRow starts a row: the strings compiled expressions made for the
// previous row are overwritten from now on, so a caller must be done
// with them (a computed value written out, an issue's value copied).
func (a *Activation) NewRow() { a.text = a.text[:0] }

// appendText writes the texts one after another into the row's text
// buffer and returns them as one string sharing the buffer's memory.
func (a *Activation) appendText(texts []string) string {
	mark := len(a.text)
	for _, t := range texts {
		a.text = append(a.text, t...)
	}
	if len(a.text) == mark {
		return ""
	}
	return unsafe.String(&a.text[mark], len(a.text)-mark)
}

// Set gives a field its value for the current row from its canonical
// text. An error is a value CEL cannot hold; the field is then null.
func (a *Activation) Set(field int, k Kind, text string) error {
	v, err := Parse(k, text)
	a.vals[field], a.boxed[field] = v, nil
	return err
}

// SetNull makes a field null for the current row.
func (a *Activation) SetNull(field int) { a.vals[field], a.boxed[field] = Value{}, nil }

// SetValue gives a field a value for the current row.
func (a *Activation) SetValue(field int, v Value) { a.vals[field], a.boxed[field] = v, nil }

// SetSource gives the source's cells for the current row, by header.
// Cells past the header are left out; headers past the cells are "".
// columns, when not nil, are the only columns CEL reads; keyCols are the
// columns of the Env's SourceKeys, which compiled expressions read.
// The slices are read during the row's evaluations only.
func (a *Activation) SetSource(header, cells []string, columns, keyCols []int) {
	if !sameSlice(a.header, header) {
		clear(a.cellMap) // another file's headers are not this one's
	}
	a.header, a.cells, a.columns, a.keyCols, a.filled = header, cells, columns, keyCols, false
}

func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// fill writes the row's cells into the map CEL reads as source.
func (a *Activation) fill() {
	a.filled = true
	if a.columns != nil {
		for _, i := range a.columns {
			v := ""
			if i < len(a.cells) {
				v = a.cells[i]
			}
			a.cellMap[a.header[i]] = v
		}
		return
	}
	for i, h := range a.header {
		v := ""
		if i < len(a.cells) {
			v = a.cells[i]
		}
		a.cellMap[h] = v
	}
}

// sourceKey is the cell of the Env's source key k for compiled
// expressions; ok is false when the file has no such header (CEL reads
// the map then, whose answer is its own).
func (a *Activation) sourceKey(k int) (string, bool) {
	if k >= len(a.keyCols) {
		return "", false
	}
	c := a.keyCols[k]
	if c < 0 {
		return "", false
	}
	if c < len(a.cells) {
		return a.cells[c], true
	}
	return "", true
}

// ResolveName is CEL's lookup of a variable.
func (a *Activation) ResolveName(name string) (any, bool) {
	if name == "source" {
		if !a.filled {
			a.fill()
		}
		return a.source, true
	}
	i, ok := a.names[name]
	if !ok {
		return nil, false
	}
	if a.boxed[i] == nil {
		a.boxed[i] = a.vals[i].CEL()
	}
	return a.boxed[i], true
}

// Parent is nil: an Activation holds every variable.
func (a *Activation) Parent() interpreter.Activation { return nil }

// KeyColumns are the columns of the Env's source keys (SourceKeys) in a
// file with this header: the last column of each name, as the source
// map holds it, or -1 when the file has none.
func (e *Env) KeyColumns(header []string) []int {
	cols := make([]int, len(e.keys))
	for k, key := range e.keys {
		cols[k] = -1
		for c, h := range header {
			if h == key {
				cols[k] = c
			}
		}
	}
	return cols
}
