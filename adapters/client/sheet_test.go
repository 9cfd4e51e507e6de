package client_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// TestChooseSheet_readsAnotherSheet: the review of a workbook lists its
// sheets with the one read marked; ChooseSheet reads the sample again
// from another and answers its review; a sheet the workbook lacks is
// invalid_request.
func TestChooseSheet_readsAnotherSheet(t *testing.T) {
	ctx := context.Background()
	c := client.New(newFront(t, nil).URL, newOrgKey(t))
	f := excelize.NewFile()
	_ = f.SetSheetName("Sheet1", "Totals")
	_ = f.SetSheetRow("Totals", "A1", &[]any{"Region", "Total"})
	_ = f.SetSheetRow("Totals", "A2", &[]any{"North", 12})
	_, _ = f.NewSheet("People")
	_ = f.SetSheetRow("People", "A1", &[]any{"id", "email"})
	_ = f.SetSheetRow("People", "A2", &[]any{1, "ann@x.io"})
	_ = f.SetSheetRow("People", "A3", &[]any{2, "bob@"})
	var book bytes.Buffer
	if err := f.Write(&book); err != nil {
		t.Fatal(err)
	}
	j, err := c.CreateJob(ctx, client.Upload{Filename: "book.xlsx", Body: &book}, client.JobParams{Schema: []byte(people), Options: []byte(`{"review":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	awaitReview(t, c, j.ID)
	r, err := c.Review(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sheets) != 2 || !r.Sheets[0].Selected || r.Sheets[1].Name != "People" || r.Sheets[1].Rows != 3 || !r.Sheets[1].Complete ||
		!slices.Equal(r.Sheets[1].FirstRow, []string{"id", "email"}) {
		t.Fatalf("sheets %+v", r.Sheets)
	}
	chosen, err := c.ChooseSheet(ctx, j.ID, "People")
	if err != nil {
		t.Fatal(err)
	}
	if !chosen.Sheets[1].Selected || columns(chosen) != "id→id/exact email→email/exact" || chosen.Sample.RowsValid != 1 || chosen.Sample.RowsRejected != 1 {
		t.Fatalf("the review of People: %s", chosen.Raw)
	}
	if _, err := c.ChooseSheet(ctx, j.ID, "Atlantis"); !client.IsCode(err, "invalid_request") {
		t.Fatalf("a sheet the workbook lacks: %v", err)
	}
}
