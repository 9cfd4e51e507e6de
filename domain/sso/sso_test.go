package sso_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/sso"
)

func TestParse(t *testing.T) {
	t.Parallel()
	ok := sso.Input{Issuer: "https://login.example.com/realms/acme/", ClientID: " tabnorm ", AllowedDomains: []string{"Acme.COM", "@acme.org", "acme.com", " "},
		BreakGlass: "Root@Acme.com"}
	c, err := sso.Parse("org_1", ok, false)
	if err != nil || c.Issuer != "https://login.example.com/realms/acme" || c.ClientID != "tabnorm" || !slices.Equal(c.AllowedDomains, []string{"acme.com", "acme.org"}) ||
		c.DefaultRole != identity.Member || c.BreakGlass != "root@acme.com" {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	for _, tc := range []struct {
		name      string
		in        sso.Input
		allowHTTP bool
		field     string
	}{
		{"http_issuer", sso.Input{Issuer: "http://login.example.com", ClientID: "c", AllowedDomains: []string{"a.com"}}, true, "issuer"},
		{"http_loopback_not_allowed", sso.Input{Issuer: "http://127.0.0.1:9000", ClientID: "c", AllowedDomains: []string{"a.com"}}, false, "issuer"},
		{"issuer_with_query", sso.Input{Issuer: "https://login.example.com/?x=1", ClientID: "c", AllowedDomains: []string{"a.com"}}, false, "issuer"},
		{"no_client", sso.Input{Issuer: "https://l.example.com", AllowedDomains: []string{"a.com"}}, false, "client_id"},
		{"no_domain", sso.Input{Issuer: "https://l.example.com", ClientID: "c"}, false, "allowed_domains"},
		{"bad_domain", sso.Input{Issuer: "https://l.example.com", ClientID: "c", AllowedDomains: []string{"not a domain"}}, false, "allowed_domains"},
		{"bad_role", sso.Input{Issuer: "https://l.example.com", ClientID: "c", AllowedDomains: []string{"a.com"}, DefaultRole: "owner"}, false, "default_role"},
		{"bad_break_glass", sso.Input{Issuer: "https://l.example.com", ClientID: "c", AllowedDomains: []string{"a.com"}, BreakGlass: "root"}, false, "break_glass_user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sso.Parse("org_1", tc.in, tc.allowHTTP)
			var coded *domain.Error
			if !errors.As(err, &coded) || !errors.Is(err, domain.ErrInvalid) || len(coded.Fields) == 0 || coded.Fields[0].Field != tc.field {
				t.Fatalf("Parse(%+v) = %v; want invalid %s", tc.in, err, tc.field)
			}
		})
	}
	if _, err := sso.Parse("org_1", sso.Input{Issuer: "http://127.0.0.1:9000", ClientID: "c", AllowedDomains: []string{"a.com"}}, true); err != nil {
		t.Fatalf("a loopback http issuer, allowed: %v", err)
	}
}

func TestConfig_PasswordAllowed(t *testing.T) {
	t.Parallel()
	c := sso.Config{Required: true, BreakGlass: "root@acme.com", AllowedDomains: []string{"acme.com"}}
	for _, tc := range []struct {
		name              string
		cfg               sso.Config
		user              identity.User
		allowed, breakIns bool
	}{
		{"not_required", sso.Config{}, identity.User{Email: "ann@acme.com", Role: identity.Member}, true, false},
		{"member", c, identity.User{Email: "ann@acme.com", Role: identity.Member}, false, false},
		{"other_admin", c, identity.User{Email: "boss@acme.com", Role: identity.Admin}, false, false},
		{"staff", c, identity.User{Email: "ops@tabnorm.example", IsStaff: true}, true, false},
		{"break_glass_admin", c, identity.User{Email: "root@acme.com", Role: identity.Admin}, true, true},
		{"break_glass_demoted", c, identity.User{Email: "root@acme.com", Role: identity.Member}, false, false},
	} {
		allowed, breakGlass := tc.cfg.PasswordAllowed(tc.user)
		if allowed != tc.allowed || breakGlass != tc.breakIns {
			t.Errorf("%s: PasswordAllowed = %t, %t; want %t, %t", tc.name, allowed, breakGlass, tc.allowed, tc.breakIns)
		}
	}
	if !c.Allows("Ann@ACME.com") || c.Allows("ann@acme.com.evil.test") || c.Allows("ann@sub.acme.com") {
		t.Error("Allows: only the listed domains, exactly")
	}
}
