package httpapi_test

import (
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestEdits_byteLimit: a job's edits hold at most
// TABNORM_MAX_EDIT_BYTES_PER_JOB bytes; the request that would pass it is
// 409 edit_limit_reached and stores nothing, on both databases.
func TestEdits_byteLimit(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target, func(c *bootstrap.Config) { c.MaxEditBytesPerJob = 200 })
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			res := app.Request(upload(t, app, "people.csv", editsCSV, map[string]string{"schema": editsSchema}), key)
			expect(t, res, 202, "")
			var created jobView
			res.JSON(t, &created)
			if done := waitJob(t, app, key, created.ID); done.Status != "succeeded" {
				t.Fatalf("job %s", done.Status)
			}
			path := "/v1/jobs/" + created.ID + "/edits"
			note := func(row, n int) string {
				return `{"edits":[{"row":` + string(rune('0'+row)) + `,"field":"note","value":"` + strings.Repeat("n", n) + `"}]}`
			}
			expect(t, app.Do("POST", path, key, note(1, 100)), 200, "")                   // 104 bytes
			expect(t, app.Do("POST", path, key, note(2, 100)), 409, "edit_limit_reached") // 208
			expect(t, app.Do("POST", path, key, note(2, 90)), 200, "")                    // 198
			var list struct{ Data []struct{ Row int } }
			app.Do("GET", path, key, nil).JSON(t, &list)
			if len(list.Data) != 2 {
				t.Fatalf("%d edits stored, want the 2 within the bound", len(list.Data))
			}
		})
	}
}
