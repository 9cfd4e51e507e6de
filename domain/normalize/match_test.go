package normalize

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/table"
)

func recordOf(n int, cells []string) table.Record {
	return table.Record{Number: n, Cells: cells, Owned: true}
}

// matchOf maps a file of a header and rows to a schema, as a job without
// review does, and returns "column→field/method" for each column.
func matchOf(t *testing.T, schemaDoc string, rows ...[]string) string {
	t.Helper()
	s := mustSchema(t, schemaDoc)
	smp := Sample{Header: rows[0]}
	for i, r := range rows[1:] {
		smp.Records = append(smp.Records, recordOf(i+1, r))
	}
	cols := smp.columnValues(s.MissingValues)
	to, entries, _ := match.Columns(match.Input{Header: smp.Header, Schema: s, Values: func() [][]string { return cols }})
	out := make([]string, len(entries))
	for c, e := range entries {
		out[c] = e.SourceColumn + "→-"
		if to[c] >= 0 {
			out[c] = fmt.Sprintf("%s→%s/%s", e.SourceColumn, e.Field, e.Method)
		}
	}
	return strings.Join(out, " ")
}

const matchContacts = `{"fields":[
	{"name":"id","type":"integer"},
	{"name":"email","type":"string","format":"email"},
	{"name":"country","type":"string","format":"country"},
	{"name":"signed_up","type":"date"},
	{"name":"status","type":"string","constraints":{"enum":["active","paused","closed"]}}]}`

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rows [][]string
		want string
	}{
		{"a synonym in the file's language", [][]string{{"Nr", "Courriel", "Pays"}, {"1", "ann@x.io", "France"}, {"2", "bob@y.fr", "Belgique"}, {"3", "cy@z.de", "FR"}},
			"Nr→id/synonym Courriel→email/synonym Pays→country/synonym"},
		// Mail's values are no addresses; Land's are, but its header names a
		// country: a person decides.
		{"values that contradict the header rule it out", [][]string{{"Land", "Mail"}, {"ann@x.io", "x"}, {"bob@y.fr", "y"}, {"cy@z.de", "z"}},
			"Land→- Mail→-"},
		{"a strong value match beats a weak header", [][]string{{"Kontakt", "Column 2"}, {"ann@x.io", "2024-01-31"}, {"bob@y.fr", "2024-02-11"}, {"cy@z.de", "2023-12-01"}},
			"Kontakt→email/content Column 2→signed_up/content"},
		{"an enum's values", [][]string{{"Column 1", "Column 2"}, {"active", "DE"}, {"paused", "FR"}, {"active", "Spain"}, {"closed", "DE"}},
			"Column 1→status/content Column 2→country/content"},
		{"two columns of e-mail addresses for one field are left to a person", [][]string{{"Column 1", "Column 2"}, {"ann@x.io", "a@b.io"}, {"bob@y.fr", "c@d.io"}},
			"Column 1→- Column 2→-"},
		{"whole numbers alone decide nothing", [][]string{{"Column 1"}, {"1"}, {"2"}, {"3"}},
			"Column 1→-"},
		{"a header naming another concept is not mapped by its values", [][]string{{"Fax"}, {"+49 30 1234567"}, {"+49 30 7654321"}},
			"Fax→-"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			if got := matchOf(t, matchContacts, tc.rows...); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestMatch_evidence: the evidence of a content mapping, and the review's
// alternatives ranked by the same score: an e-mail column headed by a
// French word like "country" is offered email first, never country.
func TestMatch_evidence(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"email","type":"string","format":"email"},{"name":"country","type":"string","format":"country"},{"name":"notes"}]}`)
	smp := Sample{Header: []string{"Coordonnées", "Column 2"}}
	for i, r := range [][]string{{"ann@x.io", "a"}, {"bob@", "b"}, {"cy@x.io", "c"}} {
		smp.Records = append(smp.Records, recordOf(i+1, r))
	}
	cols := smp.columnValues(nil)
	to, entries, mt := match.Columns(match.Input{Header: smp.Header, Schema: s, Values: func() [][]string { return cols }})
	if to[0] != 0 || entries[0].Method != match.MethodContent || *entries[0].Evidence != (match.Evidence{Header: 0, Values: 1, Matched: "email"}) || entries[0].Confidence < 0.85 {
		t.Fatalf("Coordonnées %+v %+v", entries[0], entries[0].Evidence)
	}
	for _, c := range mt.Candidates(0, nil) {
		if c.Field == "country" {
			t.Errorf("country offered for e-mail addresses: %+v", c)
		}
	}
	if to[1] != -1 || entries[1].Evidence != nil {
		t.Fatalf("Column 2 %+v", entries[1])
	}
}

// BenchmarkMatchColumns: the matcher on a sample of 1,000 records of 11
// columns none of whose headers a header method maps (generic headers),
// profile included: what a job pays once per file when the matcher runs.
func BenchmarkMatchColumns(b *testing.B) {
	var doc struct{ Files []matchingFile }
	raw, err := os.ReadFile(filepath.Join(matchingDir, "labels.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	smp, sch := readMatchingFile(b, doc.Files[0])
	base := smp.Records
	for len(smp.Records) < SampleRecords {
		smp.Records = append(smp.Records, base...)
	}
	smp.Records = smp.Records[:SampleRecords]
	header := make([]string, len(smp.Header))
	for i := range header {
		header[i] = fmt.Sprintf("Column %d", i+1)
	}
	b.ReportAllocs()
	for b.Loop() {
		cols := smp.columnValues(sch.MissingValues)
		match.Columns(match.Input{Header: header, Schema: sch, Values: func() [][]string { return cols }})
	}
}
