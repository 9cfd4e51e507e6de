package httpapi_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

type listView struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	Name   string `json:"name"`
	Count  int64  `json:"count"`
}

// listUpload is a multipart list upload: the parts in the order given.
func listUpload(t *testing.T, app *apptest.App, parts ...[2]string) *http.Request {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		if p[0] == "file" {
			fw, _ := mw.CreateFormFile("file", "values.txt")
			_, _ = fw.Write([]byte(p[1]))
			continue
		}
		_ = mw.WriteField(p[0], p[1])
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", app.URL+"/v1/lists", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

func createList(t *testing.T, app *apptest.App, who apptest.Caller, name string, values ...string) listView {
	t.Helper()
	res := app.Do("POST", "/v1/lists", who, map[string]any{"name": name, "values": values})
	expect(t, res, 201, "")
	var l listView
	res.JSON(t, &l)
	return l
}

// TestLists_lifecycleAndChecks: lists are created from JSON and from a
// file, read back in their organization only, checked by jobs (inList,
// foreignKeys, rules and computed fields), and deleted only once no
// unfinished job uses them; on each database.
func TestLists_lifecycleAndChecks(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, kind.New(t))
			acme := app.Org("Acme", identity.Normalize)
			key := apptest.Caller{Key: app.Key(acme)}
			other := apptest.Caller{Key: app.Key(app.Org("Other", identity.Normalize))}

			skus := createList(t, app, key, "skus", "A1", "B2", "A1", "")
			if !strings.HasPrefix(skus.ID, "lst_") || skus.Object != "list" || skus.Count != 2 {
				t.Fatalf("created %+v", skus)
			}
			res := app.Request(listUpload(t, app, [2]string{"name", "codes"}, [2]string{"file", "C3\r\nD4\n\nC3\n"}), key)
			expect(t, res, 201, "")
			var codes listView
			res.JSON(t, &codes)
			if codes.Count != 2 || codes.Name != "codes" {
				t.Fatalf("uploaded %+v", codes)
			}
			expect(t, app.Request(listUpload(t, app, [2]string{"file", "x\n"}, [2]string{"name", "late"}), key), 400, "invalid_request")
			expect(t, app.Do("POST", "/v1/lists", key, map[string]any{"name": "long", "values": []string{strings.Repeat("x", 1001)}}), 400, "invalid_request")
			expect(t, app.Do("POST", "/v1/lists", key, map[string]any{"name": " ", "values": []string{"a"}}), 400, "invalid_request")

			got := app.Do("GET", "/v1/lists/"+skus.ID, key, nil)
			expect(t, got, 200, "")
			expect(t, app.Do("GET", "/v1/lists/"+skus.ID, other, nil), 404, "not_found")
			expect(t, app.Do("DELETE", "/v1/lists/"+skus.ID, other, nil), 404, "not_found")
			var page struct{ Data []listView }
			all := app.Do("GET", "/v1/lists?limit=10", key, nil)
			expect(t, all, 200, "")
			all.JSON(t, &page)
			if len(page.Data) != 2 || page.Data[0].ID != codes.ID {
				t.Fatalf("listed %+v", page.Data)
			}

			schema := `{"fields":[
			  {"name":"sku","constraints":{"inList":"` + skus.ID + `"}},
			  {"name":"code"},
			  {"name":"qty","type":"integer"},
			  {"name":"label","compute":"row.sku + '-' + source['Note']"},
			  {"name":"per","type":"integer","compute":"100 / row.qty"}],
			 "foreignKeys":[{"fields":"code","reference":{"resource":"` + codes.ID + `","fields":"value"}}],
			 "rules":[{"name":"positive","expression":"row.qty == null || row.qty > 0","message":"qty must be positive","fields":["qty"]}]}`
			csv := "sku,code,qty,Note\nA1,C3,1,x\nZZ,C3,1,y\nB2,Q9,1,z\nB2,D4,-1,w\nA1,C3,0,v\n"
			up := app.Request(upload(t, app, "s.csv", csv, map[string]string{"schema": schema}), key)
			expect(t, up, 202, "")
			var j jobView
			up.JSON(t, &j)
			if done := waitJob(t, app, key, j.ID); done.Status != "succeeded" {
				t.Fatalf("job ended %s: %+v", done.Status, done.Error)
			}
			rows := app.Do("GET", "/v1/jobs/"+j.ID+"/rows.jsonl", key, nil)
			if strings.TrimSpace(rows.Body) != `{"sku":"A1","code":"C3","qty":1,"label":"A1-x","per":100}` {
				t.Fatalf("rows %s", rows.Body)
			}
			issues := app.Do("GET", "/v1/jobs/"+j.ID+"/errors.jsonl", key, nil).Body
			for _, want := range []string{`"field":"sku","severity":"error","code":"not_in_list"`, `"field":"code","severity":"error","code":"not_in_list"`,
				`"code":"rule_violation","message":"qty must be positive","value":"-1","rule":"positive"`,
				`"row":5,"source_file":null,"column":null,"field":"per","severity":"error","code":"rule_error"`} {
				if !strings.Contains(issues, want) {
					t.Fatalf("issues lack %s:\n%s", want, issues)
				}
			}
			costly(t, app, key)
			expect(t, app.Do("DELETE", "/v1/lists/"+skus.ID, key, nil), 204, "")
			expect(t, app.Do("GET", "/v1/lists/"+skus.ID, key, nil), 404, "not_found")

			// A job of a list that is gone fails with invalid_schema.
			gone := app.Request(upload(t, app, "s.csv", csv, map[string]string{"schema": schema}), key)
			expect(t, gone, 202, "")
			gone.JSON(t, &j)
			if done := waitJob(t, app, key, j.ID); done.Status != "failed" || !strings.Contains(string(mustJSON(t, done.Error)), "invalid_schema") {
				t.Fatalf("job of a deleted list ended %s: %+v", done.Status, done.Error)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLists_deleteWhileAJobUsesIt: with no worker, a job stays queued; its
// list cannot be deleted until the job is canceled.
func TestLists_deleteWhileAJobUsesIt(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.StartRole(t, kind.New(t), bootstrap.RoleAPI)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			l := createList(t, app, key, "skus", "A1")
			up := app.Request(upload(t, app, "s.csv", "sku\nA1\n", map[string]string{"schema": `{"fields":[{"name":"sku","constraints":{"inList":"` + l.ID + `"}}]}`}), key)
			expect(t, up, 202, "")
			var j jobView
			up.JSON(t, &j)
			expect(t, app.Do("DELETE", "/v1/lists/"+l.ID, key, nil), 409, "conflict")
			expect(t, app.Do("POST", "/v1/jobs/"+j.ID+"/cancel", key, nil), 200, "")
			expect(t, app.Do("DELETE", "/v1/lists/"+l.ID, key, nil), 204, "")
		})
	}
}

// TestSchemas_badRulesAre422WithTheirPath: a saved schema's and a job's
// expressions are checked before anything is stored or run; on each
// database.
func TestSchemas_badRulesAre422WithTheirPath(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			badRules(t, apptest.StartRole(t, kind.New(t), bootstrap.RoleAPI))
		})
	}
}

func badRules(t *testing.T, app *apptest.App) {
	t.Helper()
	key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
	hostile := "[" + strings.Repeat("1,", 99) + "1].all(x, [" + strings.Repeat("1,", 99) + "1].all(y, [" + strings.Repeat("1,", 99) + "1].all(z, x + y + z > 0)))"
	for _, c := range []struct{ expr, path, message string }{
		{"row.qty >", "schema.rules[0].expression", "column"},
		{"row.nope > 1", "schema.rules[0].expression", "row.nope names no field"},
		{"row.qty + 1", "schema.rules[0].expression", "must return a bool"},
		{hostile, "schema.rules[0].expression", "the limit is 10000"},
	} {
		doc := `{"fields":[{"name":"qty","type":"integer"}],"rules":[{"name":"r","expression":` + string(mustJSON(t, c.expr)) + `}]}`
		res := app.Do("POST", "/v1/schemas", key, map[string]any{"name": "s", "schema": json.RawMessage(doc)})
		expect(t, res, 422, "invalid_schema")
		var p struct {
			Errors []struct{ Field, Message string }
		}
		res.JSON(t, &p)
		if len(p.Errors) == 0 || p.Errors[0].Field != c.path || !strings.Contains(p.Errors[0].Message, c.message) {
			t.Fatalf("%q: %s", c.expr, res.Body)
		}
		job := app.Request(upload(t, app, "s.csv", "qty\n1\n", map[string]string{"schema": doc}), key)
		expect(t, job, 422, "invalid_schema")
	}
}

// costly runs a rule whose cost grows with a cell on a row whose cell is
// 400,000 characters: the runtime budget stops it on that row, a
// rule_error, and the other rows pass.
func costly(t *testing.T, app *apptest.App, key apptest.Caller) {
	t.Helper()
	schema := `{"fields":[{"name":"id","type":"integer"}],"rules":[{"name":"no_zzz","expression":"!source['Notes'].contains('zzz')"}]}`
	csv := "id,Notes\n1,short\n2," + strings.Repeat("ab", 200_000) + "\n3,zzz\n"
	up := app.Request(upload(t, app, "n.csv", csv, map[string]string{"schema": schema}), key)
	expect(t, up, 202, "")
	var j jobView
	up.JSON(t, &j)
	if done := waitJob(t, app, key, j.ID); done.Status != "succeeded" {
		t.Fatalf("job ended %s: %+v", done.Status, done.Error)
	}
	issues := app.Do("GET", "/v1/jobs/"+j.ID+"/errors.jsonl", key, nil).Body
	lines := strings.Split(strings.TrimSpace(issues), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"row":2,`) || !strings.Contains(lines[0], `"code":"rule_error"`) || !strings.Contains(lines[0], "cost limit") ||
		!strings.Contains(lines[1], `"row":3,`) || !strings.Contains(lines[1], `"code":"rule_violation"`) {
		t.Fatalf("issues:\n%s", issues)
	}
}
