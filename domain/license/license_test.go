package license

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
)

func keys(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

func TestIssueVerify(t *testing.T) {
	t.Parallel()
	pub, priv := keys(t)
	exp := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	tok, err := Issue(priv, License{Licensee: "Acme", ExpiresAt: exp, Products: []identity.Product{identity.Normalize}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := Verify(tok, pub)
	if err != nil || l.Licensee != "Acme" || !l.ExpiresAt.Equal(exp) || len(l.Products) != 1 {
		t.Fatalf("Verify = %+v, %v", l, err)
	}
	otherPub, _ := keys(t)
	head, sig, _ := strings.Cut(tok, ".")
	for name, bad := range map[string]string{
		"other key":      "",
		"tampered body":  b64.EncodeToString([]byte(`{"licensee":"Evil","expires_at":"2099-01-01T00:00:00Z","products":["normalize","connect"]}`)) + "." + sig,
		"no signature":   head,
		"garbage":        "not a token",
		"swapped halves": sig + "." + head,
	} {
		key := pub
		tokn := bad
		if name == "other key" {
			key, tokn = otherPub, tok
		}
		if _, err := Verify(tokn, key); err != ErrInvalid {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestGate(t *testing.T) {
	t.Parallel()
	pub, priv := keys(t)
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	valid, _ := Issue(priv, License{Licensee: "Acme", ExpiresAt: now.Add(time.Hour), Products: []identity.Product{identity.Normalize}})
	expired, _ := Issue(priv, License{Licensee: "Acme", ExpiresAt: now.Add(-time.Hour)})

	if err := NewGate(false, "", nil).Check(now); err != nil {
		t.Fatalf("gate off: %v", err)
	}
	cases := []struct {
		name, token string
		code        domain.Code
	}{
		{"valid", valid, ""},
		{"missing", "", "license_invalid"},
		{"garbage", "x.y", "license_invalid"},
		{"expired", expired, "license_expired"},
	}
	for _, c := range cases {
		err := NewGate(true, c.token, pub).Check(now)
		if domain.CodeOf(err) != c.code {
			t.Errorf("%s: err = %v, want code %q", c.name, err, c.code)
		}
	}
	g := NewGate(true, valid, pub)
	ents := g.Entitlements()
	if len(ents) != 1 || ents[0].Product != identity.Normalize || ents[0].Source != entitlement.License || ents[0].GrantedBy != "Acme" ||
		ents[0].OrgID != entitlement.Installation || ents[0].Until == nil || !ents[0].Until.Equal(now.Add(time.Hour).Truncate(time.Second)) {
		t.Fatalf("the license's grants: %+v", ents)
	}
	if !entitlement.Covers(ents, entitlement.Installation, identity.Normalize, now) ||
		entitlement.Covers(ents, entitlement.Installation, identity.Connect, now) ||
		entitlement.Covers(ents, entitlement.Installation, identity.Normalize, now.Add(time.Hour)) {
		t.Fatal("the license's grants cover the wrong products or outlive the license")
	}
	if !g.Required() || NewGate(false, valid, pub).Entitlements() != nil || NewGate(true, "x.y", pub).Entitlements() != nil {
		t.Fatal("grants without a valid required license")
	}
}
