package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/application/sso"
	"github.com/tabnorm/tabnorm/domain/identity"
	domainsso "github.com/tabnorm/tabnorm/domain/sso"
)

// operator is the principal of the operator's command line on an
// organization: its admin, recorded in the audit log as the operator.
func operator(orgID string) identity.Principal {
	return identity.Principal{OrgID: orgID, Role: identity.Admin}
}

func newSSOCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "sso", Short: "Set, show or remove an organization's single sign-on (OpenID Connect)"}
	cmd.AddCommand(newSSOSetCmd(), newSSOShowCmd(), newSSODeleteCmd())
	return cmd
}

func newSSOSetCmd() *cobra.Command {
	var orgID, domains string
	var asJSON bool
	var in domainsso.Input
	cmd := &cobra.Command{
		Use:   "set --org ID --issuer URL --client-id ID [--client-secret S] --domains a.com,b.com [--default-role member|admin] [--required] [--break-glass EMAIL]",
		Short: "Set an organization's OpenID Connect provider (the secret is sealed; left out, the stored one stays)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in.AllowedDomains = strings.Split(domains, ",")
			var svc *sso.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				c, err := svc.Put(ctx, operator(orgID), in)
				if err != nil {
					return err
				}
				return printSSO(cmd, c, asJSON)
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&in.Issuer, "issuer", "", "the provider's issuer URL (required)")
	cmd.Flags().StringVar(&in.ClientID, "client-id", "", "the client id registered at the provider (required)")
	cmd.Flags().StringVar(&in.ClientSecret, "client-secret", "", "the client's secret (required the first time)")
	cmd.Flags().StringVar(&domains, "domains", "", "comma-separated e-mail domains that may sign in (required)")
	cmd.Flags().StringVar(&in.DefaultRole, "default-role", "member", "role of people on their first sign-in")
	cmd.Flags().BoolVar(&in.Required, "required", false, "refuse passwords to members (staff and the break-glass admin excepted)")
	cmd.Flags().StringVar(&in.BreakGlass, "break-glass", "", "an admin's address whose password keeps working")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the settings as JSON")
	for _, f := range []string{"org", "issuer", "client-id", "domains"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func newSSOShowCmd() *cobra.Command {
	var orgID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show --org ID",
		Short: "Show an organization's single sign-on settings (never the secret)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *sso.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				c, err := svc.Get(ctx, operator(orgID))
				if err != nil {
					return err
				}
				return printSSO(cmd, c, asJSON)
			}, &svc)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the settings as JSON")
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}

func newSSODeleteCmd() *cobra.Command {
	var orgID string
	cmd := &cobra.Command{
		Use:   "delete --org ID",
		Short: "Remove an organization's single sign-on: passwords work again",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *sso.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				if err := svc.Delete(ctx, operator(orgID)); err != nil {
					return err
				}
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "removed single sign-on of %s\n", orgID)
				return err
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}

// ssoRecord is the settings as --json prints them: the API's fields but
// the redirect URI, which depends on the server's base URL.
type ssoRecord struct {
	OrganizationID string   `json:"organization_id"`
	Issuer         string   `json:"issuer"`
	ClientID       string   `json:"client_id"`
	ClientSecret   string   `json:"client_secret"`
	AllowedDomains []string `json:"allowed_domains"`
	DefaultRole    string   `json:"default_role"`
	Required       bool     `json:"required"`
	BreakGlassUser *string  `json:"break_glass_user"`
}

func printSSO(cmd *cobra.Command, c domainsso.Config, asJSON bool) error {
	if asJSON {
		var bg *string
		if c.BreakGlass != "" {
			bg = &c.BreakGlass
		}
		return printRecord(cmd, true, ssoRecord{OrganizationID: c.OrgID, Issuer: c.Issuer, ClientID: c.ClientID, ClientSecret: "set",
			AllowedDomains: c.AllowedDomains, DefaultRole: string(c.DefaultRole), Required: c.Required, BreakGlassUser: bg}, "")
	}
	breakGlass := c.BreakGlass
	if breakGlass == "" {
		breakGlass = "-"
	}
	for _, line := range []string{"organization " + c.OrgID, "issuer " + c.Issuer, "client_id " + c.ClientID, "client_secret set",
		"allowed_domains " + strings.Join(c.AllowedDomains, ","), "default_role " + string(c.DefaultRole), fmt.Sprintf("required %t", c.Required),
		"break_glass_user " + breakGlass} {
		if err := printRecord(cmd, false, nil, line); err != nil {
			return err
		}
	}
	return nil
}
