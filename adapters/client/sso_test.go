package client_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// The SDK sets, reads and removes an organization's single sign-on; the
// secret never comes back, and a second removal is sso_not_configured.
func TestSSO_setGetDelete(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	domain := strings.ToLower(strings.ReplaceAll(t.Name(), "_", "-")) + ".test"
	s, err := c.SetSSO(ctx, client.SSOParams{Issuer: "https://login.example.com", ClientID: "tabnorm", ClientSecret: "very-secret",
		AllowedDomains: []string{domain}, Required: true})
	if err != nil || s.ClientSecret != "set" || s.DefaultRole != "member" || !s.Required || !strings.HasSuffix(s.RedirectURI, "/auth/sso/callback") {
		t.Fatalf("SetSSO: %+v %v", s, err)
	}
	got, err := c.GetSSO(ctx)
	if err != nil || got.Issuer != "https://login.example.com" || !slices.Equal(got.AllowedDomains, []string{domain}) || strings.Contains(string(got.Raw), "very-secret") {
		t.Fatalf("GetSSO: %+v %v", got, err)
	}
	if err := c.DeleteSSO(ctx); err != nil {
		t.Fatal(err)
	}
	var apiErr *client.Error
	if err := c.DeleteSSO(ctx); !errors.As(err, &apiErr) || apiErr.Code != "sso_not_configured" || apiErr.Status != 404 {
		t.Fatalf("a second DeleteSSO: %v", err)
	}
}
