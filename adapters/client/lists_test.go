package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// TestLists_andRules: a schema built with the typed schema, its rules,
// computed field and reference lists, run by the real server.
func TestLists_andRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	skus, err := c.CreateList(ctx, "skus", []string{"A1", "B2", "A1"})
	if err != nil || skus.Count != 2 || !strings.HasPrefix(skus.ID, "lst_") {
		t.Fatalf("CreateList = %+v, %v", skus, err)
	}
	codes, err := c.UploadList(ctx, "codes", client.Upload{Filename: "codes.txt", Body: strings.NewReader("C3\nD4\n")})
	if err != nil || codes.Count != 2 || codes.Name != "codes" {
		t.Fatalf("UploadList = %+v, %v", codes, err)
	}
	sch, _ := json.Marshal(client.TargetSchema{
		Fields: []client.Field{
			{Name: "sku", Constraints: &client.Constraints{InList: skus.ID}},
			{Name: "code"},
			{Name: "qty", Type: "integer"},
			{Name: "label", Compute: "row.sku + '/' + row.code"}},
		ForeignKeys: []client.ForeignKey{{Fields: "code", Reference: client.ForeignKeyReference{Resource: codes.ID, Fields: "value"}}},
		Rules:       []client.Rule{{Name: "positive", Expression: "row.qty == null || row.qty > 0", Fields: []string{"qty"}, Severity: "warning"}},
	})
	j, err := c.CreateJob(ctx, client.Upload{Filename: "o.csv", Body: strings.NewReader("sku,code,qty\nA1,C3,-1\nZZ,D4,1\n")}, client.JobParams{Schema: sch})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = c.Wait(ctx, j.ID); err != nil || j.Status != "succeeded" {
		t.Fatalf("job %+v: %v", j, err)
	}
	var got []string
	for is, err := range c.Issues(ctx, j.ID) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, is.Code+":"+is.Rule)
	}
	if strings.Join(got, ",") != "rule_violation:positive,not_in_list:" {
		t.Fatalf("issues %v", got)
	}
	n := 0
	for l, err := range c.Lists(ctx, client.ListParams{PageSize: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		if l.ID != codes.ID && l.ID != skus.ID {
			t.Fatalf("listed %+v", l)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d lists", n)
	}
	if err := c.DeleteList(ctx, skus.ID); err != nil {
		t.Fatal(err)
	}
	var apiErr *client.Error
	if _, err := c.GetList(ctx, skus.ID); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("GetList of a deleted list: %v", err)
	}
}
