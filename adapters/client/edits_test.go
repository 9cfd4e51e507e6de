package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// TestEdits_fixCellsAndRerun: a finished job's rejected rows are read,
// one cell is edited (checked at once), a bad edit is refused by its
// code, the edits are listed, and a rerun with one more edit applies
// them all.
func TestEdits_fixCellsAndRerun(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	j := finishedJob(t, c, "id,email\n1,ann@x.io\n2,bob@\n3,cy@\n")
	var rows []string
	for r, err := range c.RejectedRows(ctx, j.ID) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Valid || len(r.Issues) != 1 || r.Issues[0].Code != "invalid_email" || r.Raw == nil {
			t.Fatalf("rejected row %+v", r)
		}
		rows = append(rows, *r.Cells["email"])
	}
	if strings.Join(rows, " ") != "bob@ cy@" {
		t.Fatalf("rejected rows %q", rows)
	}
	fixed := "bob@x.io"
	added, err := c.AddEdits(ctx, j.ID, []client.Edit{{Row: 2, Field: "email", Value: &fixed}})
	if err != nil {
		t.Fatal(err)
	}
	if added.EditCount != 1 || len(added.Data) != 1 || !added.Data[0].RowValid || added.Data[0].Row != 2 || *added.Data[0].Value != fixed ||
		added.Data[0].UpdatedAt == "" || len(added.Data[0].RowIssues) != 0 {
		t.Fatalf("added %s", added.Raw)
	}
	still := "still@"
	added, err = c.AddEdits(ctx, j.ID, []client.Edit{{Row: 3, Field: "email", Value: &still}})
	if err != nil || added.Data[0].RowValid || added.Data[0].RowIssues[0].Code != "invalid_email" {
		t.Fatalf("a bad value: %+v, %v", added, err)
	}
	if _, err := c.AddEdits(ctx, j.ID, []client.Edit{{Row: 9, Field: "email", Value: &fixed}}); !client.IsCode(err, "invalid_request") {
		t.Fatalf("a row the file lacks: %v", err)
	}
	var listed []string
	for e, err := range c.Edits(ctx, j.ID) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, *e.Value)
	}
	if strings.Join(listed, " ") != "bob@x.io still@" {
		t.Fatalf("edits %q", listed)
	}
	cy := "cy@x.io"
	rerun, err := c.Rerun(ctx, j.ID, client.RerunRequest{Edits: []client.Edit{{Row: 3, Field: "email", Value: &cy}}})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.Wait(ctx, rerun.ID)
	if err != nil || done.Status != "succeeded" || done.Result.RowCount != 3 || done.Result.EditsApplied != 2 {
		t.Fatalf("rerun %+v %+v: %v", done, done.Result, err)
	}
}
