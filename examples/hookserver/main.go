// Command hookserver is a runnable validation hook: the customer's own
// service a tabnorm job sends its rows to (docs/hooks.md). It knows a few
// customers, refuses rows naming another, and corrects the case of a
// customer id it recognizes.
//
//	TABNORM_HOOK_SECRET=whsec_… go run ./examples/hookserver -addr :8090
//
// Register it with POST /v1/hooks {"name":"crm","url":"https://…/validate"}
// (the answer's secret is TABNORM_HOOK_SECRET) and name it in a schema:
// "hooks":[{"hook":"crm","fields":["customer_id","email"]}].
package main

import (
	"context"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// customers are the ids this example's "CRM" knows.
var customers = map[string]bool{"CUST-001": true, "CUST-002": true, "CUST-003": true}

// check answers one batch: an unknown customer is an error (the row is
// rejected), a known one written in another case is corrected, and a
// free-mail address is a warning (the row is kept).
func check(_ context.Context, b client.HookBatch) (client.HookAnswer, error) {
	var ans client.HookAnswer
	for _, r := range b.Rows {
		var row client.HookRowAnswer
		var id, email string
		_ = json.Unmarshal(r.Values["customer_id"], &id)
		_ = json.Unmarshal(r.Values["email"], &email)
		switch up := strings.ToUpper(strings.TrimSpace(id)); {
		case id == "":
		case customers[up] && up != id:
			row.Values = map[string]any{"customer_id": up}
		case !customers[up]:
			row.Issues = append(row.Issues, client.HookIssue{Field: "customer_id", Severity: "error", Code: "unknown_customer",
				Message: "No customer " + id + " in the CRM."})
		}
		if strings.HasSuffix(strings.ToLower(email), "@gmail.com") {
			row.Issues = append(row.Issues, client.HookIssue{Field: "email", Severity: "warning", Code: "personal_email",
				Message: "A personal address; a work address is preferred."})
		}
		if row.Issues != nil || row.Values != nil {
			row.Row = r.Row
			ans.Rows = append(ans.Rows, row)
		}
	}
	return ans, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "address to listen on")
	flag.Parse()
	secret := os.Getenv("TABNORM_HOOK_SECRET")
	if !strings.HasPrefix(secret, "whsec_") {
		log.Fatal("set TABNORM_HOOK_SECRET to the hook's secret (whsec_…), shown when it was registered")
	}
	mux := http.NewServeMux()
	mux.Handle("POST /validate", client.HookHandler(check, secret))
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Printf("hook listening on http://%s/validate", *addr)
	log.Fatal(srv.ListenAndServe())
}
