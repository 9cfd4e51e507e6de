package xlsx

import (
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats/internal/formatstest"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestSerial60: a date cell holding serial 60 reads as the day the
// spreadsheet shows, 1900-02-29 (which a date field then reports as no
// date), never as the raw number.
func TestSerial60(t *testing.T) {
	t.Parallel()
	sheet := `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>when</t></is></c></row><row r="2"><c r="A2" s="1"><v>60</v></c></row>` +
		`<row r="3"><c r="A3" s="2"><v>60.25</v></c></row><row r="4"><c r="A4" s="1"><v>61</v></c></row></sheetData>`
	got := readAll(t, formatstest.WriteFile(t, "leap.xlsx", formatstest.RawWorkbook(sheet, "", xlsxKindsStyles, false)), table.ReadOptions{})
	if got.err != nil || strings.Join(firstCells(got.recs), "|") != "1900-02-29|1900-02-29T06:00:00|1900-03-01" {
		t.Fatalf("%v %v", got.err, got.recs)
	}
}

// TestXLSXPartsAtRoot: a workbook whose parts sit at the zip's root, found
// through _rels/.rels and the workbook's relationships, is read.
func TestXLSXPartsAtRoot(t *testing.T) {
	t.Parallel()
	sheet := `<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>when</t></is></c></row>` +
		`<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2" s="1"><v>45322</v></c></row></sheetData>`
	parts := formatstest.SheetWorkbookParts(sheet, `<si><t>name</t></si><si><t>Ann</t></si>`, xlsxKindsStyles, false)
	for i := 0; i < len(parts); i += 2 {
		switch parts[i] {
		case "_rels/.rels":
			parts[i+1] = strings.Replace(parts[i+1], `Target="xl/workbook.xml"`, `Target="workbook.xml"`, 1)
		case "xl/_rels/workbook.xml.rels":
			parts[i] = "_rels/workbook.xml.rels"
			parts[i+1] = strings.Replace(parts[i+1], `Target="worksheets/sheet1.xml"`, `Target="/sheet1.xml"`, 1)
		case "xl/worksheets/sheet1.xml":
			parts[i] = "sheet1.xml"
		default:
			parts[i] = strings.TrimPrefix(parts[i], "xl/")
		}
	}
	path := formatstest.WriteFile(t, "root.xlsx", formatstest.ZipParts(parts...))
	got := readAll(t, path, table.ReadOptions{})
	if got.err != nil || got.format != table.XLSX || strings.Join(got.header, "|") != "name|when" || len(got.recs) != 1 ||
		strings.Join(got.recs[0].Cells, "|") != "Ann|2024-01-31" {
		t.Fatalf("%v %q %v", got.err, got.header, got.recs)
	}
}

// TestXLSXBlankAndRepeatedHeader: in a sheet too, blank rows and rows
// repeating the header are skipped and counted.
func TestXLSXBlankAndRepeatedHeader(t *testing.T) {
	t.Parallel()
	str := func(ref, v string) string { return `<c r="` + ref + `" t="inlineStr"><is><t>` + v + `</t></is></c>` }
	num := func(ref, v string) string { return `<c r="` + ref + `"><v>` + v + `</v></c>` }
	sheet := `<sheetData><row r="1">` + str("A1", "item") + str("B1", "qty") + `</row>` +
		`<row r="2">` + str("A2", "bolt") + num("B2", "4") + `</row><row r="3">` + str("A3", " ") + `</row>` +
		`<row r="4">` + str("A4", "item") + str("B4", "qty") + `</row><row r="5">` + str("A5", "nut") + num("B5", "9") + `</row></sheetData>`
	path := formatstest.WriteFile(t, "stacked.xlsx", formatstest.RawWorkbook(sheet, "", xlsxKindsStyles, false))
	r, err := openFile(t.Context(), path, table.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		names = append(names, rec.Cells[0])
	}
	det := r.(table.Describer).Detection()
	if strings.Join(names, "|") != "bolt|nut" || !slices.Equal(det.BlankRows, []int{2}) || !slices.Equal(det.RepeatedHeaderRows, []int{3}) {
		t.Fatalf("%q blank %v repeated %v", names, det.BlankRows, det.RepeatedHeaderRows)
	}
}
