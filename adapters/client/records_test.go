package client_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// TestRecords_pagesAndIterates: a finished job's records are read a page
// at an offset (with the query's total) and iterated across pages, valid
// and rejected alike, filtered and sorted; a bad query is refused by its
// code.
func TestRecords_pagesAndIterates(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	j := finishedJob(t, c, "id,email\n1,ann@x.io\n2,bob@\n3,cy@\n4,dee@x.io\n")
	p, err := c.RecordsPage(ctx, j.ID, client.RecordsQuery{Limit: 2, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 4 || len(p.Data) != 2 || p.Data[0].Row != 2 || p.Data[0].Valid || p.Data[1].Row != 3 || p.NextCursor == nil || p.Raw == nil || p.Data[0].Raw == nil ||
		strings.Join(p.Fields, ",") != "id,email" || *p.Data[0].Cells["email"] != "bob@" || p.Data[0].Issues[0].Code != "invalid_email" {
		t.Fatalf("page %s", p.Raw)
	}
	var got []string
	for r, err := range c.Records(ctx, j.ID, client.RecordsQuery{Limit: 1, Offset: 1, Sort: "email", Desc: true}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%v", r.Row, r.Valid))
	}
	// By email downwards: dee, ann, then the rejected rows' null emails in the file's order.
	if strings.Join(got, " ") != "1:true 2:false 3:false" {
		t.Fatalf("records from 1 by email desc %q", got)
	}
	got = nil
	for r, err := range c.Records(ctx, j.ID, client.RecordsQuery{Status: "rejected", Q: "CY"}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(r.Row))
	}
	if strings.Join(got, " ") != "3" {
		t.Fatalf("rejected records with cy %q", got)
	}
	if _, err := c.RecordsPage(ctx, j.ID, client.RecordsQuery{Limit: 501}); !client.IsCode(err, "invalid_request") {
		t.Fatalf("limit 501: %v", err)
	}
}
