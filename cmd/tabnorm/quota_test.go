package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/domain/job"
)

func TestSetQuota(t *testing.T) {
	url := "sqlite://" + filepath.Join(t.TempDir(), "t.db")
	env := map[string]string{"TABNORM_DATABASE_URL": url, "TABNORM_LOG_LEVEL": "error"}
	if _, err := run(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, env, "admin", "create-org", "--name", "Acme", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var org struct{ ID string }
	if err := json.Unmarshal([]byte(out), &org); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, env, "admin", "set-quota", "--org", org.ID, "--rows-per-month", "5000", "--storage-bytes", "1048576")
	if err != nil || !strings.Contains(out, "5000 rows a month") {
		t.Fatalf("set-quota: %q %v", out, err)
	}
	// The setting is in the organization's audit log.
	if out, err = run(t, env, "admin", "audit", "export", "--org", org.ID, "--action", "quota.set"); err != nil || strings.Count(out, "\n") != 1 ||
		!strings.Contains(out, `"target_id":"`+org.ID+`"`) {
		t.Fatalf("the audit log of set-quota: %q %v", out, err)
	}
	if _, err := run(t, env, "admin", "set-quota", "--org", "org_missing", "--rows-per-month", "1"); err == nil {
		t.Error("set-quota of an unknown organization succeeded")
	}
	if _, err := run(t, env, "admin", "set-quota", "--org", org.ID, "--rows-per-month", "-1"); exitCode(err) != 2 {
		t.Errorf("negative quota: exit %d for %v", exitCode(err), err)
	}
	db, err := sqlstore.Open(context.Background(), sqlstore.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q, err := sqlstore.NewQuotas(db).Get(context.Background(), org.ID)
	if err != nil || q != (job.Quota{RowsPerMonth: 5000, StorageBytes: 1 << 20}) {
		t.Fatalf("stored quota %+v %v", q, err)
	}
}
