package normalize

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// The evaluation set of column matching (test/testdata/matching, written by
// its generate.py): made-up files with headers in seven languages,
// abbreviations, vendor-style, generic and missing headers, every column
// labelled with its field or "none". The goals: a wrong automatic mapping
// is a silent error, so precision comes first.
const (
	goalPrecision = 0.98
	goalRecall    = 0.90
	goalTop3      = 0.97
)

// madeUpReached are the set's figures reached (precision, recall, top-3
// recall): a change may not lose them.
var madeUpReached = [3]float64{1, 0.924, 1}

const matchingDir = "../../test/testdata/matching"

type matchingFile struct {
	File      string   `json:"file"`
	Split     string   `json:"split"`
	Schema    string   `json:"schema"`
	Delimiter string   `json:"delimiter"`
	Header    bool     `json:"header"`
	Labels    []string `json:"labels"`
	Columns   []string `json:"columns"`
}

// matchingTally counts one split's outcomes.
type matchingTally struct {
	files, columns, labelled int
	mapped, correct          int
	top3                     int
}

func (tl *matchingTally) precision() float64  { return ratio(tl.correct, tl.mapped) }
func (tl *matchingTally) recall() float64     { return ratio(tl.correct, tl.labelled) }
func (tl *matchingTally) top3Recall() float64 { return ratio(tl.top3, tl.labelled) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func TestMatching_evaluationSet(t *testing.T) {
	t.Parallel()
	var doc struct {
		Files []matchingFile `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(matchingDir, "labels.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Files) < 60 {
		t.Fatalf("the evaluation set has %d files, want at least 60", len(doc.Files))
	}
	tallies := map[string]*matchingTally{"all": {}}
	var misses []string
	for _, mf := range doc.Files {
		smp, sch := readMatchingFile(t, mf)
		auto := automaticMapping(t, mf, smp, sch)
		proposals := reviewProposals(t, mf, smp, sch)
		for _, key := range []string{"all", mf.Split} {
			if tallies[key] == nil {
				tallies[key] = &matchingTally{}
			}
			tallies[key].files++
		}
		for c, want := range mf.Labels {
			got, top := auto[c], proposals[c]
			for _, key := range []string{"all", mf.Split} {
				tallies[key].add(want, got, top)
			}
			if got != "" && got != want || want != "none" && got != want {
				misses = append(misses, fmt.Sprintf("%s %q: mapped %q, want %q; proposed %v", mf.File, mf.Columns[c], got, want, top))
			}
		}
	}
	for _, m := range misses {
		t.Log(m)
	}
	keys := make([]string, 0, len(tallies))
	for k := range tallies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tl := tallies[k]
		t.Logf("%-4s %2d files, %3d columns (%d with a field): automatic mapping precision %.3f (%d/%d), recall %.3f; review top-3 recall %.3f (%d/%d)",
			k, tl.files, tl.columns, tl.labelled, tl.precision(), tl.correct, tl.mapped, tl.recall(), tl.top3Recall(), tl.top3, tl.labelled)
	}
	all := tallies["all"]
	if all.precision() < goalPrecision || all.recall() < goalRecall || all.top3Recall() < goalTop3 {
		t.Errorf("below the goals (precision %.2f, recall %.2f, top-3 %.2f): precision %.3f, recall %.3f, top-3 %.3f",
			goalPrecision, goalRecall, goalTop3, all.precision(), all.recall(), all.top3Recall())
	}
	// No loss: the figures reached on the set hold.
	if f := all.figures(); f[0] < madeUpReached[0] || f[1] < madeUpReached[1] || f[2] < madeUpReached[2] {
		t.Errorf("below the figures reached (precision %.3f, recall %.3f, top-3 %.3f): %.3f, %.3f, %.3f",
			madeUpReached[0], madeUpReached[1], madeUpReached[2], f[0], f[1], f[2])
	}
}

func (tl *matchingTally) add(want, got string, top []string) {
	tl.columns++
	if got != "" {
		tl.mapped++
	}
	if want == "none" {
		return
	}
	tl.labelled++
	if got == want {
		tl.correct++
	}
	for i, f := range top {
		if i < 3 && f == want {
			tl.top3++
		}
	}
}

// readMatchingFile reads a file of the set as a review's sample, and its
// schema.
func readMatchingFile(t testing.TB, mf matchingFile) (*Sample, *schema.Schema) {
	t.Helper()
	f, err := os.Open(filepath.Join(matchingDir, mf.File))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	r := csv.NewReader(f)
	r.Comma = rune(mf.Delimiter[0])
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", mf.File, err)
	}
	smp := &Sample{Format: table.CSV, Header: mf.Columns, Complete: true}
	if mf.Header {
		if strings.Join(records[0], "\x00") != strings.Join(mf.Columns, "\x00") {
			t.Fatalf("%s: header %q, labels name %q", mf.File, records[0], mf.Columns)
		}
		records = records[1:]
	}
	for i, rec := range records {
		smp.Records = append(smp.Records, table.Record{Number: i + 1, Cells: rec, Owned: true})
	}
	if len(mf.Labels) != len(mf.Columns) {
		t.Fatalf("%s: %d labels for %d columns", mf.File, len(mf.Labels), len(mf.Columns))
	}
	doc, err := os.ReadFile(filepath.Join(matchingDir, "schemas", mf.Schema+".json"))
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Parse(doc)
	if err != nil {
		t.Fatalf("%s: %v", mf.Schema, err)
	}
	for _, l := range mf.Labels {
		if l != "none" && sch.Index(l) < 0 {
			t.Fatalf("%s: label %q is no field of %s", mf.File, l, mf.Schema)
		}
	}
	return smp, sch
}

// automaticMapping runs the engine on the file, as a job without review
// does, and returns each column's field ("" when unmapped).
func automaticMapping(t *testing.T, mf matchingFile, smp *Sample, sch *schema.Schema) []string {
	t.Helper()
	res, err := Run(context.Background(), Input{Mode: ModeNormalize, Schema: sch, Options: Defaults(ModeNormalize), Sources: []Source{smp.Source()}},
		Output{Rows: io.Discard, Issues: io.Discard})
	var f *Failure
	if err != nil && !(asFailure(err, &f) && f.Code == "no_columns_mapped") {
		t.Fatalf("%s: %v", mf.File, err)
	}
	out := make([]string, len(mf.Columns))
	for c, m := range res.Mapping {
		out[c] = m.Field
	}
	return out
}

func asFailure(err error, f **Failure) bool {
	ff, ok := err.(*Failure)
	*f = ff
	return ok
}

// reviewProposals computes the file's review and returns, per column, the
// fields it proposes in order: the mapped one, then the alternatives.
func reviewProposals(t *testing.T, mf matchingFile, smp *Sample, sch *schema.Schema) [][]string {
	t.Helper()
	rev, err := RunReview(context.Background(), ReviewInput{Mode: ModeNormalize, Schema: sch, Options: Defaults(ModeNormalize), Samples: []Sample{*smp}})
	if err != nil {
		t.Fatalf("%s: %v", mf.File, err)
	}
	out := make([][]string, len(rev.Columns))
	for c, col := range rev.Columns {
		if col.Field != nil {
			out[c] = append(out[c], *col.Field)
		}
		for _, a := range col.Alternatives {
			out[c] = append(out[c], a.Field)
		}
	}
	return out
}

// The evaluation set of real files (test/testdata/matching-real): the
// header and first rows of public open-data files in seven languages, each
// with its source in manifest.jsonl, a target schema written as a customer
// would (English field names, no aliases, some decoy fields no column
// holds) and every field's true column labelled by hand. Split b is held
// out: no rule is tuned on it, and its misses are not logged.
const realMatchingDir = "../../test/testdata/matching-real"

// The goals on the held-out split b of real files: the test fails under
// them. Where the matcher does not reach a goal yet, realHeldOutGaps holds
// the figure it reached instead: the test fails under that figure, and
// fails once the goal is reached so that the gap is taken out (the gap is
// reported in docs/engine.md). The tuned split a holds the figures it
// reached, so that a change that loses ground there fails too.
var realGoals = [3]float64{0.98, 0.85, 0.95} // precision, recall, top-3 recall

var realHeldOutGaps = map[int]float64{ // metric (1 recall, 2 top-3): figure reached
	1: 0.757,
	2: 0.940,
}

var realTunedFloors = [3]float64{0.995, 0.893, 0.973}

var realMetricNames = [3]string{"precision", "recall", "top-3 recall"}

type realMatchingFile struct {
	File      string            `json:"file"`
	Lang      string            `json:"lang"`
	Split     string            `json:"split"`
	Delimiter string            `json:"delimiter"`
	Repo      string            `json:"repo"`
	Commit    string            `json:"commit"`
	Path      string            `json:"path"`
	Fields    []string          `json:"fields"` // name:type[:format]
	Truth     map[string]string `json:"truth"`  // field: column; a field not named is a decoy
}

func readRealManifest(t testing.TB) []realMatchingFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realMatchingDir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []realMatchingFile
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rf realMatchingFile
		if err := json.Unmarshal([]byte(line), &rf); err != nil {
			t.Fatalf("manifest.jsonl line %d: %v", i+1, err)
		}
		if rf.Repo == "" || len(rf.Commit) != 40 || rf.Path == "" || (rf.Split != "a" && rf.Split != "b") {
			t.Fatalf("manifest.jsonl line %d (%s): repository, commit, path and split a or b are required", i+1, rf.File)
		}
		out = append(out, rf)
	}
	return out
}

// realSchema is the file's target schema.
func realSchema(t testing.TB, rf realMatchingFile) *schema.Schema {
	t.Helper()
	type field struct {
		Name   string `json:"name"`
		Type   string `json:"type"`
		Format string `json:"format,omitempty"`
	}
	var doc struct {
		Fields []field `json:"fields"`
	}
	for _, f := range rf.Fields {
		parts := strings.Split(f, ":")
		fl := field{Name: parts[0], Type: parts[1]}
		if len(parts) > 2 {
			fl.Format = parts[2]
		}
		doc.Fields = append(doc.Fields, fl)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", rf.File, err)
	}
	return sch
}

// readRealFile reads a file of the set as a review's sample, and labels
// each column with its field, or none.
func readRealFile(t testing.TB, rf realMatchingFile, sch *schema.Schema) (*Sample, []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(realMatchingDir, "files", rf.File))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	r := csv.NewReader(f)
	r.Comma = ','
	if rf.Delimiter != "" {
		r.Comma = rune(rf.Delimiter[0])
	}
	r.LazyQuotes = true
	r.FieldsPerRecord = -1 // rows are kept as published, ragged ones too
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", rf.File, err)
	}
	smp := &Sample{Format: table.CSV, Header: records[0], Complete: true}
	for i, rec := range records[1:] {
		smp.Records = append(smp.Records, table.Record{Number: i + 1, Cells: rec, Owned: true})
	}
	labels := make([]string, len(smp.Header))
	for c := range labels {
		labels[c] = "none"
	}
	for field, col := range rf.Truth {
		if sch.Index(field) < 0 {
			t.Fatalf("%s: truth names %q, no field of its schema", rf.File, field)
		}
		found := false
		for c, h := range smp.Header {
			if h == col {
				labels[c], found = field, true
			}
		}
		if !found {
			t.Fatalf("%s: truth names column %q, not in the header %q", rf.File, col, smp.Header)
		}
	}
	return smp, labels
}

func TestMatching_realFiles(t *testing.T) {
	t.Parallel()
	files := readRealManifest(t)
	if len(files) < 80 {
		t.Fatalf("the real evaluation set has %d files, want at least 80", len(files))
	}
	tallies := map[string]*matchingTally{"a": {}, "b": {}, "all": {}}
	decoys := 0
	var misses []string
	for _, rf := range files {
		sch := realSchema(t, rf)
		smp, labels := readRealFile(t, rf, sch)
		mf := matchingFile{File: rf.File, Columns: smp.Header}
		auto := automaticMapping(t, mf, smp, sch)
		proposals := reviewProposals(t, mf, smp, sch)
		for c, want := range labels {
			got := auto[c]
			for _, key := range []string{"all", rf.Split} {
				tallies[key].add(want, got, proposals[c])
			}
			if got != "" && rf.Truth[got] == "" {
				decoys++
			}
			if rf.Split == "a" && (got != "" && got != want || want != "none" && got != want) {
				misses = append(misses, fmt.Sprintf("%s %q: mapped %q, want %q; proposed %v", rf.File, smp.Header[c], got, want, proposals[c]))
			}
		}
		for _, key := range []string{"all", rf.Split} {
			tallies[key].files++
		}
	}
	for _, m := range misses {
		t.Log(m)
	}
	for _, k := range []string{"a", "b", "all"} {
		tl := tallies[k]
		t.Logf("real %-3s %2d files, %3d columns (%d with a field): automatic mapping precision %.3f (%d/%d), recall %.3f; review top-3 recall %.3f (%d/%d)",
			k, tl.files, tl.columns, tl.labelled, tl.precision(), tl.correct, tl.mapped, tl.recall(), tl.top3Recall(), tl.top3, tl.labelled)
	}
	if decoys > 0 {
		t.Errorf("%d columns mapped to a decoy field", decoys)
	}
	checkRealGoals(t, tallies)
}

// checkRealGoals fails under the goals on the held-out split (or, for a
// goal in realHeldOutGaps, under the figure reached), and under the
// figures reached on the tuned split.
func checkRealGoals(t *testing.T, tallies map[string]*matchingTally) {
	t.Helper()
	for i, got := range tallies["b"].figures() {
		want, gap := realGoals[i], false
		if reached, ok := realHeldOutGaps[i]; ok {
			want, gap = reached, true
			t.Logf("held-out split b: %s %.3f, under the goal %.2f by %.3f", realMetricNames[i], got, realGoals[i], realGoals[i]-got)
		}
		switch {
		case got < want-1e-9 && gap:
			t.Errorf("held-out split b: %s %.3f, below the %.3f reached before (goal %.2f)", realMetricNames[i], got, want, realGoals[i])
		case got < want-1e-9:
			t.Errorf("held-out split b: %s %.3f, below the goal %.2f", realMetricNames[i], got, want)
		case gap && got >= realGoals[i]:
			t.Errorf("held-out split b: %s %.3f reaches the goal %.2f: take it out of realHeldOutGaps", realMetricNames[i], got, realGoals[i])
		}
	}
	for i, got := range tallies["a"].figures() {
		if got < realTunedFloors[i]-1e-9 {
			t.Errorf("tuned split a: %s %.3f, below the %.3f reached", realMetricNames[i], got, realTunedFloors[i])
		}
	}
}

// figures are a tally's precision, recall and top-3 recall, rounded to
// three places as the log shows them.
func (tl *matchingTally) figures() [3]float64 {
	r := func(f float64) float64 { return math.Round(f*1000) / 1000 }
	return [3]float64{r(tl.precision()), r(tl.recall()), r(tl.top3Recall())}
}
