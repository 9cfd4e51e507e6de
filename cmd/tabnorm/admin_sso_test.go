package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSSOCommands: the operator sets, shows and removes an organization's
// single sign-on; the secret is never printed, the first set needs one,
// and every change is in the organization's audit log as the operator's.
func TestSSOCommands(t *testing.T) {
	env := map[string]string{"TABNORM_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "t.db"), "TABNORM_LOG_LEVEL": "error"}
	if _, err := run(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, env, "admin", "create-org", "--name", "Acme", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var org struct{ ID string }
	_ = json.Unmarshal([]byte(out), &org)
	set := []string{"admin", "sso", "set", "--org", org.ID, "--issuer", "https://login.acme.example", "--client-id", "tabnorm", "--domains", "acme.test, acme.example"}
	if _, err := run(t, env, set...); err == nil || !strings.Contains(message(err), "client_secret") {
		t.Fatalf("a first set without a secret: %v", err)
	}
	out, err = run(t, env, append(set, "--client-secret", "s3cr3t-value", "--required")...)
	if err != nil || !strings.Contains(out, "allowed_domains acme.test,acme.example") || !strings.Contains(out, "required true") || strings.Contains(out, "s3cr3t-value") {
		t.Fatalf("set: %q %v", out, err)
	}
	out, err = run(t, env, "admin", "sso", "show", "--org", org.ID, "--json")
	var shown struct {
		Issuer, ClientSecret string
		Required             bool
	}
	if err != nil || json.Unmarshal([]byte(out), &shown) != nil || shown.Issuer != "https://login.acme.example" || !shown.Required || strings.Contains(out, "s3cr3t-value") {
		t.Fatalf("show --json: %q %v", out, err)
	}
	out, err = run(t, env, "admin", "sso", "show", "--org", org.ID)
	if err != nil || !strings.Contains(out, "issuer https://login.acme.example") || !strings.Contains(out, "client_secret set") || strings.Contains(out, "s3cr3t-value") {
		t.Fatalf("show: %q %v", out, err)
	}
	if out, err = run(t, env, "admin", "sso", "delete", "--org", org.ID); err != nil || !strings.Contains(out, "removed") {
		t.Fatalf("delete: %q %v", out, err)
	}
	if _, err := run(t, env, "admin", "sso", "show", "--org", org.ID); err == nil || !strings.Contains(message(err), "no single sign-on") {
		t.Fatalf("show after delete: %v", err)
	}
	out, err = run(t, env, "admin", "audit", "export", "--org", org.ID)
	if err != nil || !strings.Contains(out, `"action":"sso.configured"`) || !strings.Contains(out, `"action":"sso.deleted"`) || !strings.Contains(out, `"type":"operator"`) {
		t.Fatalf("the audit log: %q %v", out, err)
	}
}
