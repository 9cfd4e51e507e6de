package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
)

func newAdminCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "admin", Short: "Manage organizations, users and products"}
	cmd.AddCommand(newCreateOrgCmd(), newCreateUserCmd(), newProductCmd("grant"), newProductCmd("revoke-product"), newListEntitlementsCmd(), newCreateKeyCmd(), newSetQuotaCmd(),
		newListOrgsCmd(), newListKeysCmd(), newRevokeKeyCmd(), newListUsersCmd(), newResetPasswordCmd(), newDisableUserCmd(), newAuditCmd(), newSSOCmd())
	return cmd
}

func newCreateOrgCmd() *cobra.Command {
	var name, products string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create-org --name NAME [--products normalize,connect]",
		Short: "Create an organization",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ps, err := identity.ParseProducts(products)
			if err != nil {
				return usage(err)
			}
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				org, err := svc.CreateOrg(ctx, name, ps)
				if err != nil {
					return err
				}
				return printRecord(cmd, asJSON, httpapi.NewOrganizationJSON(org),
					fmt.Sprintf("created organization %s %q with products %v", org.ID, org.Name, org.Products))
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "organization name (required)")
	cmd.Flags().StringVar(&products, "products", "normalize", "comma-separated products: normalize, connect")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record as JSON")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func newCreateUserCmd() *cobra.Command {
	var in accounts.NewUser
	var role string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create-user --org ID --email EMAIL --password PASSWORD [--role admin|member] [--staff]",
		Short: "Create a user in an organization",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := identity.ParseRole(role)
			if err != nil {
				return usage(err)
			}
			in.Role = r
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				u, err := svc.CreateUser(ctx, in)
				if err != nil {
					return err
				}
				return printRecord(cmd, asJSON, httpapi.NewUserJSON(u),
					fmt.Sprintf("created %s %s (%s%s) in %s", u.Role, u.Email, u.ID, staffNote(u.IsStaff), u.OrgID))
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&in.OrgID, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&in.Email, "email", "", "login email (required)")
	cmd.Flags().StringVar(&in.Password, "password", "", "initial password, at least 8 characters (required)")
	cmd.Flags().StringVar(&in.Name, "name", "", "display name")
	cmd.Flags().StringVar(&role, "role", "member", "admin or member")
	cmd.Flags().BoolVar(&in.IsStaff, "staff", false, "service staff (may impersonate organizations)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record as JSON")
	for _, f := range []string{"org", "email", "password"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func staffNote(staff bool) string {
	if staff {
		return ", staff"
	}
	return ""
}

// newProductCmd builds `admin grant` and `admin revoke-product` (also
// `admin revoke`).
func newProductCmd(verb string) *cobra.Command {
	var orgID, product, until string
	var asJSON bool
	cmd := &cobra.Command{
		Use: verb + " --org ID --product PRODUCT" + map[string]string{"grant": " [--until 2027-01-01]"}[verb],
		Short: map[string]string{"grant": "Grant an organization a product, until a day or without end (replaces its current grant)",
			"revoke-product": "Revoke an organization's grant of a product"}[verb],
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := identity.ParseProduct(product)
			if err != nil {
				return usage(err)
			}
			end, err := entitlement.ParseUntil(until)
			if err != nil {
				return usage(err)
			}
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				var org identity.Organization
				var err error
				if verb == "grant" {
					org, err = svc.Grant(ctx, orgID, p, end)
				} else {
					org, err = svc.Revoke(ctx, orgID, p)
				}
				if err != nil {
					return err
				}
				return printRecord(cmd, asJSON, httpapi.NewOrganizationJSON(org),
					fmt.Sprintf("organization %s now has products %v", org.ID, org.Products))
			}, &svc)
		},
	}
	if verb == "revoke-product" {
		cmd.Aliases = []string{"revoke"}
	} else {
		cmd.Flags().StringVar(&until, "until", "", "the grant's end: a day (2027-01-01, UTC) or an RFC 3339 time; none by default")
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&product, "product", "", "normalize or connect (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record as JSON")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("product")
	return cmd
}

func newCreateKeyCmd() *cobra.Command {
	var orgID, name, scopes, expires string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create-key --org ID --name NAME [--scopes jobs:read,jobs:write] [--expires 90d]",
		Short: "Create an API key and print its plaintext, which is shown only this once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := keys.NewKey{Name: name}
			if cmd.Flags().Changed("scopes") {
				req.Scopes = splitList(scopes)
			}
			if expires != "" {
				at, err := parseExpires(expires, time.Now())
				if err != nil {
					return err
				}
				req.ExpiresAt = &at
			}
			var svc *keys.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				k, plain, err := svc.CreateForOperator(ctx, orgID, req)
				if err != nil {
					return err
				}
				return printRecord(cmd, asJSON, httpapi.NewAPIKeyJSON(k, plain),
					fmt.Sprintf("created API key %s %q for %s:\n%s\nStore it now: it cannot be shown again.", k.ID, k.Name, k.OrgID, plain))
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&name, "name", "", "what the key is for (required)")
	cmd.Flags().StringVar(&scopes, "scopes", "", "comma-separated scopes: "+scopeList()+" (default: admin, every scope)")
	cmd.Flags().StringVar(&expires, "expires", "", "when the key stops working: a duration from now (90d, 12h) or an RFC 3339 time (default: never)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record, with the plaintext key, as JSON")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

// splitList splits a comma-separated flag, keeping empty names out; an
// empty flag is an empty list, which the service refuses.
func splitList(s string) []string {
	out := []string{}
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func scopeList() string {
	names := make([]string, len(apikey.Scopes))
	for i, s := range apikey.Scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// parseExpires reads --expires: a number of days ("90d"), a Go duration
// ("12h") or an RFC 3339 time.
func parseExpires(s string, now time.Time) (time.Time, error) {
	if at, err := time.Parse(time.RFC3339, s); err == nil {
		return at, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return now.Add(time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("--expires %q: want a duration such as 90d or 12h, or an RFC 3339 time", s)
}
