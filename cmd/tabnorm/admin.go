package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
)

func newAdminCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "admin", Short: "Manage organizations, users and products"}
	cmd.AddCommand(newCreateOrgCmd(), newCreateUserCmd(), newProductCmd("grant"), newProductCmd("revoke-product"), newListEntitlementsCmd(), newCreateKeyCmd(), newSetQuotaCmd(),
		newListOrgsCmd(), newListKeysCmd(), newRevokeKeyCmd(), newListUsersCmd(), newResetPasswordCmd(), newDisableUserCmd())
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
	var orgID, name string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "create-key --org ID --name NAME",
		Short: "Create an API key and print its plaintext, which is shown only this once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *keys.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				k, plain, err := svc.CreateForOperator(ctx, orgID, name)
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the record, with the plaintext key, as JSON")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}
