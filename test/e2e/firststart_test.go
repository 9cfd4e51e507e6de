package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
)

// TestServe_concurrentFirstStart starts three processes at once on an
// empty PostgreSQL database, as replicas of a new deployment do: each
// applies or waits for the migrations (ours and River's) and becomes
// ready, and exactly one of them seeds the first organization.
func TestServe_concurrentFirstStart(t *testing.T) {
	t.Parallel()
	target, ok := sqltest.Postgres(t)
	if !ok {
		t.Skip("*** SKIPPED: needs PostgreSQL (TABNORM_TEST_DATABASE_URL) ***")
	}
	dir := t.TempDir()
	env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs")}
	const n = 3
	servers := make([]*server, n)
	found := make([]<-chan struct{}, n)
	for i := range n {
		servers[i], found[i] = launchServe(t, dir, "all", env...)
	}
	seeded := 0
	for i, s := range servers {
		s.await(t, found[i])
		if code := getStatus(t, s.url+"/readyz"); code != 200 {
			t.Fatalf("process %d: /readyz = %d", i, code)
		}
		if s.password != "" {
			seeded++
		}
	}
	if seeded != 1 {
		t.Fatalf("%d processes printed a first admin password, want exactly 1", seeded)
	}
	out, err := execCommand(dir, env, "admin", "list-orgs", "--json").Output()
	var orgs []json.RawMessage
	if err != nil || json.Unmarshal(out, &orgs) != nil {
		t.Fatalf("list-orgs: %q %v", out, err)
	}
	if len(orgs) != 1 {
		t.Fatalf("%d organizations after a concurrent first start, want 1", len(orgs))
	}
	for i, s := range servers {
		if err := s.stop(t); err != nil {
			t.Fatalf("process %d exited with %v after SIGTERM", i, err)
		}
	}
}

// TestServe_kubernetesServiceLinks starts the binary with exactly the
// variables Kubernetes injects for a Service named tabnorm: it serves.
func TestServe_kubernetesServiceLinks(t *testing.T) {
	t.Parallel()
	s := startServe(t, t.TempDir(),
		"TABNORM_PORT=tcp://10.96.0.12:8080",
		"TABNORM_SERVICE_HOST=10.96.0.12",
		"TABNORM_SERVICE_PORT=8080",
		"TABNORM_PORT_8080_TCP=tcp://10.96.0.12:8080",
		"TABNORM_PORT_8080_TCP_ADDR=10.96.0.12",
		"TABNORM_PORT_8080_TCP_PORT=8080",
		"TABNORM_PORT_8080_TCP_PROTO=tcp")
	if code := getStatus(t, s.url+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d", code)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}
