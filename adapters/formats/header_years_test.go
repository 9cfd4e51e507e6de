package formats

import (
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// A report of yearly figures under a title block: a merged title, a line
// naming the region and period (as wide as 60 % of the table), a blank
// line, then the header, whose year columns are named by numbers. The
// kinds of its cells match the numbers below, so only the years tell it
// from data; before, the title line was taken for the header.
var yearlyReport = [][]string{
	{"Sales by region, in thousands"},
	{"Region: EMEA", "", "Period:", "2022-2023"},
	{},
	{"Region", "Country", "2022", "2023", "Change %"},
	{"EMEA", "DE", "100", "120", "20%"},
	{"EMEA", "FR", "90", "95", "5.5%"},
	{"EMEA", "IT", "80", "70", "-12.5%"},
	{"EMEA", "ES", "60", "66", "10%"},
}

func TestYearsHeaderBelowATitleBlock(t *testing.T) {
	t.Parallel()
	wantHeader := []string{"Region", "Country", "2022", "2023", "Change %"}
	t.Run("csv", func(t *testing.T) {
		t.Parallel()
		var b strings.Builder
		for _, rec := range yearlyReport {
			b.WriteString(strings.Join(rec, ",") + "\n")
		}
		p := readAll(t, formatstest.WriteFile(t, "report.csv", []byte(b.String())), table.ReadOptions{})
		checkYearlyReport(t, p, wantHeader)
	})
	t.Run("xlsx", func(t *testing.T) {
		t.Parallel()
		path := formatstest.Workbook(t, func(f *excelize.File) {
			for i, rec := range yearlyReport {
				for j, v := range rec {
					cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
					var value any = v
					if i > 3 && j >= 2 && j <= 3 { // the figures are typed numbers, the header's years text
						value = atoiOr(v)
					}
					if err := f.SetCellValue("Sheet1", cell, value); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := f.MergeCell("Sheet1", "A1", "E1"); err != nil {
				t.Fatal(err)
			}
		})
		checkYearlyReport(t, readAll(t, path, table.ReadOptions{}), wantHeader)
	})
	t.Run("a_column_of_years_is_data", func(t *testing.T) {
		t.Parallel()
		// Years below the years: the record is data of a table without a
		// header, not the header of yearly figures.
		csv := "Sales\nfrom,to,units\n2019,2020,5\n2020,2021,7\n2021,2022,9\n"
		p := readAll(t, formatstest.WriteFile(t, "spans.csv", []byte(csv)), table.ReadOptions{})
		if p.err != nil || strings.Join(p.header, ",") != "from,to,units" || len(p.recs) != 3 {
			t.Fatalf("header %q, %d records, %v", p.header, len(p.recs), p.err)
		}
	})
}

func checkYearlyReport(t *testing.T, p parsed, want []string) {
	t.Helper()
	if p.err != nil {
		t.Fatal(p.err)
	}
	if strings.Join(p.header, "|") != strings.Join(want, "|") {
		t.Fatalf("header %q; want %q", p.header, want)
	}
	if len(p.recs) != 4 || p.recs[0].Cells[1] != "DE" || p.recs[0].Cells[2] != "100" {
		t.Fatalf("records %d, first %q", len(p.recs), p.recs[0].Cells)
	}
}

func atoiOr(s string) any {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return s
		}
		n = n*10 + int(r-'0')
	}
	return n
}
