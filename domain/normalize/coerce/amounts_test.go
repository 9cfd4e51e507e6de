package coerce

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// TestCodesBesideNumbers: only an ISO 4217 code (or a currency symbol)
// may stand beside an amount; a code of other letters (a region, a SKU,
// a ticket id) is an invalid number that names the value, never the
// digits it carries.
func TestCodesBesideNumbers(t *testing.T) {
	t.Parallel()
	integer := Compile(schema.Field{Name: "n", Type: schema.Integer}, false, OrderMDY, ".", "")
	number := Compile(schema.Field{Name: "n", Type: schema.Number}, false, OrderMDY, ".", "")
	for _, tc := range []struct {
		col  Column
		in   string
		want string // "" means refused with code
		code string
	}{
		{integer, "ITF1", "", "invalid_integer"},
		{integer, "ITH3", "", "invalid_integer"},
		{integer, "ABC1", "", "invalid_integer"},
		{integer, "XYZ12", "", "invalid_integer"},
		{integer, "12 ABC", "", "invalid_integer"},
		{integer, "XXX 12", "", "invalid_integer"}, // "no currency" is not an amount's currency
		{number, "ABC1.5", "", "invalid_number"},
		{number, "SKU 7", "", "invalid_number"},
		{integer, "EUR 12", "12", ""},
		{integer, "EUR12", "12", ""},
		{integer, "12 USD", "12", ""},
		{number, "-CHF 3.50", "-3.50", ""},
		{number, "GBP-3.5", "-3.5", ""},
		{number, "€7", "7", ""},
		{number, "7 €", "7", ""},
	} {
		sc := new(Scratch)
		got, p := tc.col.coerce(tc.in, sc)
		switch {
		case tc.code != "" && (p == nil || p.Code != tc.code):
			t.Errorf("%s %q: got %q %+v, want %s", tc.col.Field.Type, tc.in, got, p, tc.code)
		case tc.code != "" && !strings.Contains(p.Message, tc.in):
			t.Errorf("%q: the message %q does not quote the value", tc.in, p.Message)
		case tc.code == "" && (p != nil || got != tc.want):
			t.Errorf("%s %q: got %q %+v, want %q", tc.col.Field.Type, tc.in, got, p, tc.want)
		}
	}
}
