package httpapi_test

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestImportSession_submitPolicy: a session's submit_policy is stored and
// shown to its importer; under block, submit is 409 rows_still_invalid
// while the final job has a rejected row and the session stays open, and
// goes through once the end user fixed it (a replacement, on the
// secret's own job, then a rerun); under min_valid_rows, fewer is 409
// too_few_valid_rows; a bad policy is 400 at its member; on both
// databases.
func TestImportSession_submitPolicy(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			bad := importSessionBody()
			bad["submit_policy"] = map[string]any{"invalid_rows": "keep", "min_valid_rows": -1}
			res := k.do("POST", "/v1/import-sessions", key, bad, 400, "invalid_request")
			if !strings.Contains(res.Body, `"field":"submit_policy.invalid_rows"`) || !strings.Contains(res.Body, `"field":"submit_policy.min_valid_rows"`) {
				t.Fatalf("a bad policy: %s", res.Body)
			}
			var plain struct {
				SubmitPolicy map[string]any `json:"submit_policy"`
			}
			k.do("POST", "/v1/import-sessions", key, importSessionBody(), 201, "").JSON(t, &plain)
			if plain.SubmitPolicy["invalid_rows"] != "drop" || plain.SubmitPolicy["min_valid_rows"] != float64(0) {
				t.Fatalf("the default policy %v", plain.SubmitPolicy)
			}

			block := importSessionBody()
			block["submit_policy"] = map[string]any{"invalid_rows": "block"}
			secret := apptest.Caller{Key: createImportSession(t, app, key, block).ClientSecret}
			jobID := policyJob(t, k, app, secret)
			var current struct {
				Status       string         `json:"status"`
				SubmitPolicy map[string]any `json:"submit_policy"`
			}
			k.do("GET", "/v1/import-sessions/current", secret, nil, 200, "").JSON(t, &current)
			if current.SubmitPolicy["invalid_rows"] != "block" {
				t.Fatalf("the importer's session %+v", current)
			}
			k.do("POST", "/v1/import-sessions/current/submit", secret, nil, 409, "rows_still_invalid")
			if k.do("GET", "/v1/import-sessions/current", secret, nil, 200, "").JSON(t, &current); current.Status != "open" {
				t.Fatalf("after a refused submit the session is %s, want open", current.Status)
			}
			k.do("POST", "/v1/jobs/"+jobID+"/replacements", secret, `{"field":"email","find":"not-an-email","replace":"b@example.com"}`, 200, "")
			var rerun jobView
			k.do("POST", "/v1/jobs/"+jobID+"/rerun", secret, nil, 202, "").JSON(t, &rerun)
			if done := waitJob(t, app, secret, rerun.ID); done.Status != "succeeded" {
				t.Fatalf("rerun %s", done.Status)
			}
			k.do("POST", "/v1/import-sessions/current/submit", secret, nil, 200, "")

			many := importSessionBody()
			many["submit_policy"] = map[string]any{"min_valid_rows": 5}
			secret = apptest.Caller{Key: createImportSession(t, app, key, many).ClientSecret}
			policyJob(t, k, app, secret)
			k.do("POST", "/v1/import-sessions/current/submit", secret, nil, 409, "too_few_valid_rows")
		})
	}
}

// policyJob uploads messyPeople (one valid row, one rejected) through a
// session's secret, confirms its review and waits for it.
func policyJob(t *testing.T, k *checked, app *apptest.App, secret apptest.Caller) string {
	t.Helper()
	id := uploadJob(t, app, secret, nil)
	awaitStatus(t, app, secret, id, "awaiting_review")
	k.do("POST", "/v1/jobs/"+id+"/confirm", secret, nil, 202, "")
	if done := waitJob(t, app, secret, id); done.Status != "succeeded" {
		t.Fatalf("job %s", done.Status)
	}
	return id
}
