package browser

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestSchemas_showRulesAndComputedFields: the schemas page lists a saved
// schema's rules, computed fields and list checks.
func TestSchemas_showRulesAndComputedFields(t *testing.T) {
	browserTest(t)
	app := apptest.StartRole(t, sqltest.SQLite(t), bootstrap.RoleAPI)
	org := app.Org("Acme", identity.Normalize)
	key := apptest.Caller{Key: app.Key(org)}
	admin := person(t, app, org, "ann@acme.test", identity.Admin, false)
	doc := `{"fields":[{"name":"start","type":"date"},{"name":"end","type":"date"},{"name":"sku","constraints":{"inList":"lst_skus"}},
	  {"name":"label","compute":"row.sku + '!'"}],
	 "rules":[{"name":"end_after_start","expression":"row.end == null || row.start == null || row.end >= row.start","message":"End before start","fields":["end"]},
	          {"name":"has_sku","expression":"row.sku != null","severity":"warning"}]}`
	if res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "orders", "schema": json.RawMessage(doc)}); res.StatusCode != 201 {
		t.Fatalf("save: %d %s", res.StatusCode, res.Body)
	}
	p := open(t, app)
	p.visit("/login")
	p.login(admin.Email)
	p.visit("/schemas")
	p.until("the schema's summary", `document.querySelector('#schemas-list .schema-logic summary')?.innerText === '2 rules, 1 computed, 1 list check'`)
	p.do(chromedp.Click(chromedp.CSS("#schemas-list .schema-logic summary")))
	got := eval[string](p, `document.querySelector('#schemas-list .schema-logic').innerText`)
	for _, want := range []string{"end_after_start (error, end): row.end == null || row.start == null || row.end >= row.start — End before start",
		"has_sku (warning): row.sku != null", "label = row.sku + '!'", "sku in list lst_skus"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the page shows %q, not %q", got, want)
		}
	}
	p.shot("schemas-rules")
}
