package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// operatorUserJSON is a user as the operator's commands print it: the
// API's user record and whether an operator disabled it.
type operatorUserJSON struct {
	httpapi.UserJSON
	DisabledAt *string `json:"disabled_at"`
}

func newOperatorUserJSON(u identity.User) operatorUserJSON {
	out := operatorUserJSON{UserJSON: httpapi.NewUserJSON(u)}
	if u.DisabledAt != nil {
		at := u.DisabledAt.UTC().Format("2006-01-02T15:04:05.000Z07:00") // as the API writes times
		out.DisabledAt = &at
	}
	return out
}

func newListUsersCmd() *cobra.Command {
	var orgID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list-users --org ID",
		Short: "List an organization's users, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				users, err := all(ctx, func(ctx context.Context, p ports.Page) ([]identity.User, string, error) {
					return svc.ListUsers(ctx, orgID, p)
				})
				if err != nil {
					return err
				}
				out := make([]operatorUserJSON, len(users))
				for i, u := range users {
					out[i] = newOperatorUserJSON(u)
				}
				return printList(cmd, asJSON, out, func(u operatorUserJSON) string {
					state := "active"
					if u.DisabledAt != nil {
						state = "disabled " + *u.DisabledAt
					}
					return fmt.Sprintf("%s  %-32s  %-6s%s  %s", u.ID, u.Email, u.Role, staffNote(u.IsStaff), state)
				})
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records as a JSON array")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}

func newResetPasswordCmd() *cobra.Command {
	var userID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reset-password --user ID",
		Short: "Give a user a new random password, printed only this once, and end their sessions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				u, password, ended, err := svc.ResetPassword(ctx, userID)
				if err != nil {
					return err
				}
				rec := struct {
					operatorUserJSON
					Password      string `json:"password"`
					SessionsEnded int    `json:"sessions_ended"`
				}{newOperatorUserJSON(u), password, ended}
				return printRecord(cmd, asJSON, rec, fmt.Sprintf(
					"new password of %s (%s), ending %d session(s):\n%s\nHand it over now: it cannot be shown again.", u.Email, u.ID, ended, password))
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&userID, "user", "", "user id (required; list-users shows them)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the user, the new password and the sessions ended as JSON")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}

func newDisableUserCmd() *cobra.Command {
	var userID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "disable-user --user ID",
		Short: "Stop a user from signing in and end their sessions at once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				u, ended, err := svc.DisableUser(ctx, userID)
				if err != nil {
					return err
				}
				return printRecord(cmd, asJSON, newOperatorUserJSON(u),
					fmt.Sprintf("disabled %s (%s), ending %d session(s); API keys of the organization are not affected", u.Email, u.ID, ended))
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&userID, "user", "", "user id (required; list-users shows them)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the user as JSON")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}

func newRevokeKeyCmd() *cobra.Command {
	var orgID, keyID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "revoke-key --org ID --key ID",
		Short: "Revoke an organization's API key; the next request with it is refused, on every node",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *keys.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				k, err := svc.RevokeForOperator(ctx, orgID, keyID)
				if err != nil {
					return err
				}
				return printRecord(cmd, asJSON, httpapi.NewAPIKeyJSON(k, ""),
					fmt.Sprintf("revoked API key %s %q of %s", k.ID, k.Name, k.OrgID))
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&keyID, "key", "", "key id (required; list-keys shows them)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the key's record as JSON")
	_ = cmd.MarkFlagRequired("org")
	_ = cmd.MarkFlagRequired("key")
	return cmd
}
