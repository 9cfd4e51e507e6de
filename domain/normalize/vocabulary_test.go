package normalize

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain/table"
)

const matchRegional = `{"fields":[
	{"name":"report_date","type":"date"},
	{"name":"country","type":"string","format":"country"},
	{"name":"region","type":"string"},
	{"name":"region_code","type":"string"},
	{"name":"deaths","type":"integer"},
	{"name":"hospitalized","type":"integer"},
	{"name":"email","type":"string","format":"email"}]}`

// TestMatch_headersReadAsWords: real headers in five languages map to a
// schema's English field names, and nothing maps to the decoy e-mail.
func TestMatch_headersReadAsWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rows [][]string
		want string
	}{
		{"Italian snake_case", [][]string{{"codice_regione", "denominazione_regione", "deceduti", "totale_ospedalizzati"},
			{"13", "Abruzzo", "394", "160"}, {"17", "Basilicata", "27", "15"}, {"21", "P.A. Bolzano", "291", "40"}},
			"codice_regione→region_code/synonym denominazione_regione→region/synonym deceduti→deaths/synonym totale_ospedalizzati→hospitalized/synonym"},
		{"German compounds", [][]string{{"Todesfaelle", "Hospitalisierungen"}, {"1", "5"}, {"0", "7"}, {"5", "2"}},
			"Todesfaelle→deaths/synonym Hospitalisierungen→hospitalized/synonym"},
		{"Spanish and Dutch", [][]string{{"fallecimientos", "Provincienaam"}, {"3", "Drenthe"}, {"5", "Utrecht"}},
			"fallecimientos→deaths/synonym Provincienaam→-"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			if got := matchOf(t, matchRegional, tc.rows...); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestMatch_valuesDecide: a column whose values are all of a telling kind
// maps to the schema's only field of that kind when its header cannot say
// (an unknown word, or one that agrees), no other column competes, and
// its header names nothing else.
func TestMatch_valuesDecide(t *testing.T) {
	t.Parallel()
	const sch = `{"fields":[{"name":"start_date","type":"date"},{"name":"country","type":"string","format":"country"},
		{"name":"active","type":"boolean"},{"name":"deaths","type":"integer"}]}`
	for _, tc := range []struct {
		name string
		rows [][]string
		want string
	}{
		{"ISO alpha-3 codes under an unknown word", [][]string{{"geo", "deceduti"}, {"DEU", "3"}, {"FRA", "5"}, {"ITA", "8"}},
			"geo→country/content deceduti→deaths/synonym"},
		{"DMY dates under a compound that agrees, yes and no under an unknown word", [][]string{{"Beitrittsdatum", "Kennzeichen"}, {"31.01.2020", "ja"}, {"15.02.2021", "nein"}, {"01.03.2019", "ja"}},
			"Beitrittsdatum→start_date/synonym Kennzeichen→active/content"},
		{"dates under a day", [][]string{{"dia"}, {"24-03-2020"}, {"25-03-2020"}, {"26-03-2020"}},
			"dia→start_date/content"},
		{"dates under a header naming something else", [][]string{{"Geändert am"}, {"2020-01-31"}, {"2021-02-15"}, {"2019-03-01"}},
			"Geändert am→-"},
		{"two columns of dates compete", [][]string{{"Beitrittsdatum", "Austrittsdatum"}, {"31.01.2020", "01.02.2021"}, {"15.02.2021", "01.03.2022"}, {"01.03.2019", "01.04.2020"}},
			"Beitrittsdatum→- Austrittsdatum→-"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			if got := matchOf(t, sch, tc.rows...); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRun_ambiguousMapping: two columns whose headers name a field
// equally are left to a person, and the run says so, naming both; the
// review proposes the field for each.
func TestRun_ambiguousMapping(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"region_code","type":"string"},{"name":"deaths","type":"integer"}]}`)
	header := []string{"codice_regione", "cod_regione", "deceduti"}
	r := execute(t, ModeNormalize, s, "", source("", header, []string{"13", "ITF1", "3"}, []string{"17", "ITF5", "5"}, []string{"21", "ITH1", "8"}))
	if got := strings.Join(codes(r.issues), ","); got != "ambiguous_mapping,unmapped_field" {
		t.Fatalf("issues %v", r.issues)
	}
	msg, _ := r.issues[0]["message"].(string)
	if r.issues[0]["field"] != "region_code" || !strings.Contains(msg, `"codice_regione"`) || !strings.Contains(msg, `"cod_regione"`) {
		t.Fatalf("issue %v", r.issues[0])
	}
	if r.rows[0]["region_code"] != nil || fmt.Sprint(r.rows[0]["deaths"]) != "3" {
		t.Fatalf("rows %v", r.rows)
	}
	smp := Sample{Header: header, Records: []table.Record{recordOf(1, []string{"13", "ITF1", "3"}), recordOf(2, []string{"17", "ITF5", "5"})}}
	rev, err := RunReview(context.Background(), ReviewInput{Mode: ModeNormalize, Schema: s, Options: Defaults(ModeNormalize), Samples: []Sample{smp}})
	if err != nil {
		t.Fatal(err)
	}
	for c := range 2 {
		col := rev.Columns[c]
		if col.Field != nil || len(col.Alternatives) == 0 || col.Alternatives[0].Field != "region_code" {
			t.Errorf("review column %s: field %v, alternatives %+v", col.SourceColumn, col.Field, col.Alternatives)
		}
	}
}

// TestRun_synonymMappingContested: a synonym mapping made over another
// column whose header names the field too, less well, carries a warning
// naming both, as a fuzzy mapping does; an uncontested one carries none.
func TestRun_synonymMappingContested(t *testing.T) {
	t.Parallel()
	s := mustSchema(t, `{"fields":[{"name":"count","type":"integer"},{"name":"date","type":"date"}]}`)
	r := execute(t, ModeNormalize, s, "", source("", []string{"Datum", "Aantal", "AantalCumulatief"},
		[]string{"2020-03-01", "4", "9"}, []string{"2020-03-02", "5", "14"}, []string{"2020-03-03", "12", "26"}))
	if got := strings.Join(codes(r.issues), ","); got != "synonym_mapping" {
		t.Fatalf("issues %v", r.issues)
	}
	msg, _ := r.issues[0]["message"].(string)
	if r.issues[0]["field"] != "count" || r.issues[0]["column"] != "Aantal" || !strings.Contains(msg, `"AantalCumulatief"`) {
		t.Fatalf("issue %v", r.issues[0])
	}
	if fmt.Sprint(r.rows[0]["count"]) != "4" {
		t.Fatalf("rows %v", r.rows)
	}
	r = execute(t, ModeNormalize, s, "", source("", []string{"Datum", "Aantal"}, []string{"2020-03-01", "4"}, []string{"2020-03-02", "5"}, []string{"2020-03-03", "12"}))
	if len(r.issues) != 0 {
		t.Fatalf("uncontested: issues %v", r.issues)
	}
}
