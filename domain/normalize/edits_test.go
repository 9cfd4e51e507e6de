package normalize

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
)

func sp(s string) *string { return &s }

const editsSchema = `{"fields":[
	{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
	{"name":"email","type":"string","format":"email","constraints":{"required":true}},
	{"name":"active","type":"boolean"},
	{"name":"note","type":"string"},
	{"name":"label","type":"string","compute":"row.email"}]}`

func runEdits(t *testing.T, s *schema.Schema, opts string, edits []Edit, sources ...Source) run {
	t.Helper()
	o, err := ParseOptions(ModeNormalize, []byte(opts))
	if err != nil {
		t.Fatal(err)
	}
	var rows, issues bytes.Buffer
	res, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: sources, Edits: edits}, Output{Rows: &rows, Issues: &issues})
	r := run{res: res, err: err, raw: rows.String()}
	for _, line := range strings.Split(strings.TrimSpace(rows.String()), "\n") {
		if line != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			r.rows = append(r.rows, m)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(issues.String()), "\n") {
		if line != "" {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			r.issues = append(r.issues, m)
		}
	}
	return r
}

func TestRun_editsFixCellsBeforeCoercion(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[
		{"name":"id","type":"integer","constraints":{"required":true,"unique":true}},
		{"name":"email","type":"string","format":"email","constraints":{"required":true}},
		{"name":"active","type":"boolean"},
		{"name":"note","type":"string"}]}`)
	src := source("",
		[]string{"id", "email", "active"},
		[]string{"1", "ann@example.com", "ja"},
		[]string{"2", "bob@example", "ja"},    // a typo
		[]string{"3", "cy@example.com", "ja"}, // value_map fixes "ja"; the edit wins
		[]string{"4", "dee@example.com", "true"},
	)
	edits := []Edit{
		{Row: 2, Field: "email", Value: sp("  Bob@Example.com ")}, // trimmed and coerced as any cell
		{Row: 3, Field: "active", Value: sp("nope")},              // not value_map's: an issue quoting the edit
		{Row: 4, Field: "note", Value: sp("called")},              // a field the file has no column for
		{Row: 1, Field: "active", Value: nil},                     // cleared
		{Row: 9, Field: "email", Value: sp("x@example.com")},      // no such row
	}
	r := runEdits(t, s, `{"value_map":{"active":{"ja":"true"}}}`, edits, src)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.EditsApplied != 4 || r.res.EditsNotApplied != 1 {
		t.Fatalf("applied %d, not applied %d; want 4 and 1", r.res.EditsApplied, r.res.EditsNotApplied)
	}
	if len(r.rows) != 3 {
		t.Fatalf("rows = %v, want 3 (row 3 rejected)", r.rows)
	}
	if r.rows[0]["active"] != nil || r.rows[1]["email"] != "bob@example.com" || r.rows[1]["active"] != true || r.rows[2]["note"] != "called" || r.rows[0]["note"] != nil {
		t.Fatalf("rows = %v", r.rows)
	}
	var bad, notApplied map[string]any
	for _, is := range r.issues {
		switch is["code"] {
		case "invalid_boolean":
			bad = is
		case "edit_not_applied":
			notApplied = is
		}
	}
	if bad == nil || bad["value"] != "nope" || bad["row"] != float64(3) {
		t.Fatalf("the edited cell's issue = %v; want invalid_boolean quoting the edit", bad)
	}
	if notApplied == nil || notApplied["row"] != float64(9) || notApplied["field"] != "email" || notApplied["severity"] != "warning" {
		t.Fatalf("edit_not_applied = %v (issues %v)", notApplied, r.issues)
	}
}

func TestRun_editsNameTheirFile(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"}]}`)
	a := source("file_a", []string{"id", "email"}, []string{"1", "bad"})
	b := source("file_b", []string{"id", "email"}, []string{"1", "bad"})
	r := runEdits(t, s, "", []Edit{{Row: 1, SourceFile: "file_b", Field: "email", Value: sp("ok@example.com")}}, a, b)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.RowCount != 1 || r.res.RejectedCount != 1 || r.rows[0]["email"] != "ok@example.com" || r.res.EditsApplied != 1 {
		t.Fatalf("result %+v, rows %v", r.res, r.rows)
	}
}

func TestRun_editsFeedRulesAndComputedFields(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, editsSchema)
	src := source("", []string{"id", "email"}, []string{"1", "x"})
	r := runEdits(t, s, "", []Edit{{Row: 1, Field: "email", Value: sp("fixed@example.com")}}, src)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.rows) != 1 || r.rows[0]["label"] != "fixed@example.com" {
		t.Fatalf("rows = %v, issues %v", r.rows, r.issues)
	}
}

func TestCheckRows_editedRowsAgain(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, editsSchema)
	rows := [][]string{{"id", "email", "active"}}
	for i := 1; i <= 2000; i++ {
		rows = append(rows, []string{itoa(i), "user" + itoa(i) + "@example.com", "yes"})
	}
	rows[1500][1] = "broken"
	rows[7][2] = "maybe"
	src := source("", rows...)
	o, _ := ParseOptions(ModeNormalize, nil)
	edits := []Edit{{Row: 1500, Field: "email", Value: sp("fixed@example.com")}, {Row: 7, Field: "note", Value: sp("hi")}}
	got, err := CheckRows(context.Background(), Input{Mode: ModeNormalize, Schema: s, Options: o, Sources: []Source{src}, Edits: edits},
		map[string][]int64{"": {7, 1500, 5000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d checks", len(got))
	}
	r7, r1500, r5000 := got[0], got[1], got[2]
	if !r7.Found || r7.Valid || len(r7.Issues) != 1 || r7.Issues[0].Code != "invalid_boolean" || *r7.Cells["active"] != "maybe" || *r7.Cells["note"] != "hi" {
		t.Fatalf("row 7 = %+v", r7)
	}
	if !r1500.Found || !r1500.Valid || len(r1500.Issues) != 0 || *r1500.Cells["email"] != "fixed@example.com" || r1500.Edited[0] != "email" {
		t.Fatalf("row 1500 = %+v", r1500)
	}
	var vals map[string]any
	if err := json.Unmarshal(r1500.Values, &vals); err != nil || vals["label"] != "fixed@example.com" || vals["id"] != float64(1500) {
		t.Fatalf("row 1500 values %s (%v)", r1500.Values, err)
	}
	if r5000.Found || r5000.Valid {
		t.Fatalf("row 5000 = %+v; the file has 2000 rows", r5000)
	}
}

func TestCheckEditsAndMerge(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, editsSchema)
	errs := CheckEdits("edits", []Edit{
		{Row: 0, Field: "email"}, {Row: 1, Field: "nope"}, {Row: 1, Field: "label"}, {Row: 1, Field: "email", SourceFile: "file_x"},
		{Row: 2, Field: "email", Value: sp(strings.Repeat("x", MaxEditValueBytes+1))}, {Row: 3, Field: "email"},
	}, s, []string{""})
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Field)
	}
	want := "edits[0].row edits[1].field edits[2].field edits[3].source_file edits[4].value"
	if strings.Join(paths, " ") != want {
		t.Fatalf("problems at %q, want %q", paths, want)
	}
	m := MergeEdits([]Edit{{Row: 2, Field: "email", Value: sp("a")}, {Row: 1, Field: "email", Value: sp("b")}}, []Edit{{Row: 2, Field: "email", Value: sp("c")}})
	if len(m) != 2 || m[0].Row != 1 || *m[1].Value != "c" {
		t.Fatalf("merged = %+v", m)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
