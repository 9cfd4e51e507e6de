package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

func TestCheck(t *testing.T) {
	b := client.HookBatch{Rows: []client.HookRow{
		{Row: 1, Values: map[string]json.RawMessage{"customer_id": json.RawMessage(`"CUST-001"`), "email": json.RawMessage(`"a@acme.com"`)}},
		{Row: 2, Values: map[string]json.RawMessage{"customer_id": json.RawMessage(`"cust-002"`)}},
		{Row: 3, Values: map[string]json.RawMessage{"customer_id": json.RawMessage(`"CUST-999"`), "email": json.RawMessage(`"x@gmail.com"`)}},
	}}
	ans, err := check(context.Background(), b)
	if err != nil || len(ans.Rows) != 2 || ans.Rows[0].Row != 2 || ans.Rows[0].Values["customer_id"] != "CUST-002" ||
		ans.Rows[1].Row != 3 || len(ans.Rows[1].Issues) != 2 || ans.Rows[1].Issues[0].Code != "unknown_customer" {
		t.Fatalf("%+v %v", ans, err)
	}
}
