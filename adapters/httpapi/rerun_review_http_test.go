package httpapi_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestRerun_backToMatching: POST …/rerun {"review":true} takes a finished
// job back to matching: the rerun awaits its review with the original's
// mapping proposed (and the request's over it), and a rerun without it
// runs through; on both databases.
func TestRerun_backToMatching(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			var first jobView
			k.send(upload(t, app, "people.csv", editsCSV, map[string]string{"schema": editsSchema}), key, 202, "").JSON(t, &first)
			if done := waitJob(t, app, key, first.ID); done.Status != "succeeded" {
				t.Fatalf("first job %s", done.Status)
			}
			var rerun jobView
			k.do("POST", "/v1/jobs/"+first.ID+"/rerun", key, map[string]any{"review": true, "mapping": map[string]any{"Active": nil}}, 202, "").JSON(t, &rerun)
			waitStatus(t, app, key, "/v1/jobs/"+rerun.ID, "awaiting_review")
			var rv reviewView
			k.do("GET", "/v1/jobs/"+rerun.ID+"/review", key, nil, 200, "").JSON(t, &rv)
			var got []string
			for _, c := range rv.Columns {
				f := "-"
				if c.Field != nil {
					f = *c.Field
				}
				got = append(got, fmt.Sprintf("%s=%s", c.SourceColumn, f))
			}
			sort.Strings(got)
			if rv.JobStatus != "awaiting_review" || strings.Join(got, " ") != "Active=- E-mail=email ID=id Joined=joined" {
				t.Fatalf("review of the rerun %s %v", rv.JobStatus, got)
			}
			// Without it, a rerun runs through, as before.
			k.do("POST", "/v1/jobs/"+first.ID+"/rerun", key, map[string]any{}, 202, "").JSON(t, &rerun)
			if done := waitJob(t, app, key, rerun.ID); done.Status != "succeeded" {
				t.Fatalf("a rerun without review: %s", done.Status)
			}
			k.do("POST", "/v1/jobs/"+first.ID+"/rerun", key, `{"review":"yes"}`, 400, "invalid_request")
		})
	}
}
