package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/domain/entitlement"
)

// entitlementJSON is one grant as `admin list-entitlements --json` prints it.
type entitlementJSON struct {
	ID        string  `json:"id"`
	Object    string  `json:"object"`
	OrgID     string  `json:"org_id"`
	Product   string  `json:"product"`
	Source    string  `json:"source"`
	GrantedBy string  `json:"granted_by"`
	GrantedAt string  `json:"granted_at"`
	Until     *string `json:"until"`
	RevokedAt *string `json:"revoked_at"`
	RevokedBy string  `json:"revoked_by,omitempty"`
	Status    string  `json:"status"` // active, expired or revoked, when the command ran
}

func rfc3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func newEntitlementJSON(e entitlement.Entitlement, now time.Time) entitlementJSON {
	return entitlementJSON{ID: e.ID, Object: "entitlement", OrgID: e.OrgID, Product: string(e.Product), Source: string(e.Source),
		GrantedBy: e.GrantedBy, GrantedAt: e.GrantedAt.UTC().Format(time.RFC3339), Until: rfc3339(e.Until),
		RevokedAt: rfc3339(e.RevokedAt), RevokedBy: e.RevokedBy, Status: e.Status(now)}
}

func newListEntitlementsCmd() *cobra.Command {
	var orgID string
	var history, asJSON bool
	cmd := &cobra.Command{
		Use:   "list-entitlements --org ID [--history]",
		Short: "List an organization's grants of products (with --history, every grant it had, newest first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				grants, err := svc.Entitlements(ctx, orgID, history)
				if err != nil {
					return err
				}
				now := time.Now()
				out := make([]entitlementJSON, len(grants))
				for i, g := range grants {
					out[i] = newEntitlementJSON(g, now)
				}
				return printList(cmd, asJSON, out, func(e entitlementJSON) string {
					line := fmt.Sprintf("%s  %-9s  %-7s  %s by %s at %s", e.ID, e.Product, e.Status, e.Source, e.GrantedBy, e.GrantedAt)
					if e.Until != nil {
						line += " until " + *e.Until
					}
					if e.RevokedAt != nil {
						line += fmt.Sprintf(", revoked by %s at %s", e.RevokedBy, *e.RevokedAt)
					}
					return line
				})
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().BoolVar(&history, "history", false, "every grant, revoked and replaced ones too, newest first")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records as a JSON array")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}
