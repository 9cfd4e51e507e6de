package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// SSO is an organization's single sign-on with OpenID Connect (API.md
// §4.9, docs/sso.md). The client secret is never returned: ClientSecret
// is "set".
type SSO struct {
	Issuer         string          `json:"issuer"`
	ClientID       string          `json:"client_id"`
	ClientSecret   string          `json:"client_secret"`
	AllowedDomains []string        `json:"allowed_domains"`
	DefaultRole    string          `json:"default_role"`
	Required       bool            `json:"required"`
	BreakGlassUser *string         `json:"break_glass_user"`
	RedirectURI    string          `json:"redirect_uri"`
	Created        time.Time       `json:"created_at"`
	Updated        time.Time       `json:"updated_at"`
	Raw            json.RawMessage `json:"-"`
}

func (s *SSO) keep(raw []byte) { s.Raw = raw }

// SSOParams sets the provider. ClientSecret is required the first time
// and, left empty, keeps the stored one.
type SSOParams struct {
	Issuer         string   `json:"issuer"`
	ClientID       string   `json:"client_id"`
	ClientSecret   string   `json:"client_secret,omitempty"`
	AllowedDomains []string `json:"allowed_domains"`
	DefaultRole    string   `json:"default_role,omitempty"`
	Required       bool     `json:"required"`
	BreakGlassUser string   `json:"break_glass_user,omitempty"`
}

// GetSSO reads the organization's single sign-on settings (an admin key).
func (c *Client) GetSSO(ctx context.Context) (*SSO, error) {
	var s SSO
	return &s, c.call(ctx, request{method: http.MethodGet, path: "/v1/sso"}, &s)
}

// SetSSO creates or replaces the organization's single sign-on settings.
func (c *Client) SetSSO(ctx context.Context, p SSOParams) (*SSO, error) {
	b, err := jsonBody(p)
	if err != nil {
		return nil, err
	}
	var s SSO
	return &s, c.call(ctx, request{method: http.MethodPut, path: "/v1/sso", body: b, contentType: "application/json", replayable: true}, &s)
}

// DeleteSSO removes the organization's single sign-on; passwords work again.
func (c *Client) DeleteSSO(ctx context.Context) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/sso"}, nil)
}
