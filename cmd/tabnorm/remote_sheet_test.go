package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/bootstrap"
)

// TestRemote_jobsSheet: the review of a workbook lists its sheets, and
// jobs sheet reads the sample again from another and shows its review; a
// sheet the workbook lacks exits 1 with invalid_request.
func TestRemote_jobsSheet(t *testing.T) {
	remoteApp(t, bootstrap.RoleAll)
	f := excelize.NewFile()
	_ = f.SetSheetName("Sheet1", "Totals")
	_ = f.SetSheetRow("Totals", "A1", &[]any{"Region", "Total"})
	_ = f.SetSheetRow("Totals", "A2", &[]any{"North", 12})
	_, _ = f.NewSheet("People")
	_ = f.SetSheetRow("People", "A1", &[]any{"Ident", "E-mail"})
	_ = f.SetSheetRow("People", "A2", &[]any{1, "ann@x.io"})
	_ = f.SetSheetRow("People", "A3", &[]any{2, "bob@"})
	book := filepath.Join(t.TempDir(), "book.xlsx")
	if err := f.SaveAs(book); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runRemote(t, "jobs", "create", book, "--schema", reviewSchema, "--review", "--wait", "--json")
	if err != nil {
		t.Fatalf("create --review --wait: %v\n%s", err, errOut)
	}
	var j struct{ ID, Status string }
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Status != "awaiting_review" {
		t.Fatalf("create printed %q: %v", out, err)
	}
	out, _, err = runRemote(t, "jobs", "review", j.ID)
	if err != nil || !strings.HasSuffix(out, "sheet: Totals, 2 rows, read\nsheet: People, 3 rows\n") {
		t.Fatalf("review: %v\n%s", err, out)
	}
	out, _, err = runRemote(t, "jobs", "sheet", j.ID, "People")
	if err != nil || !strings.Contains(out, "\nsample: 2 records, 1 valid, 1 rejected (the whole file)\n") || rowOf(out, "E-mail") == "" ||
		!strings.HasSuffix(out, "sheet: Totals, 2 rows\nsheet: People, 3 rows, read\n") {
		t.Fatalf("sheet People: %v\n%s", err, out)
	}
	if _, _, err := runRemote(t, "jobs", "sheet", j.ID, "Atlantis"); exitCode(err) != 1 || !strings.HasPrefix(message(err), "invalid_request: ") {
		t.Fatalf("a sheet the workbook lacks: exit %d, %q", exitCode(err), message(err))
	}
}
