package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/application/accounts"
	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/ports"
)

// listPage is how many records the list commands read at a time.
const listPage = 100

// printList prints records as one JSON array with --json (an empty list
// is []), else one text line each.
func printList[T any](cmd *cobra.Command, asJSON bool, records []T, text func(T) string) error {
	if asJSON {
		if records == nil {
			records = []T{}
		}
		raw, err := json.Marshal(records)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", safeJSON(raw))
		return err
	}
	for _, r := range records {
		if _, err := fmt.Fprintln(cmd.OutOrStdout(), safeText(text(r))); err != nil {
			return err
		}
	}
	return nil
}

// all reads every page of a list.
func all[T any](ctx context.Context, list func(context.Context, ports.Page) ([]T, string, error)) ([]T, error) {
	var out []T
	page := ports.Page{Limit: listPage}
	for {
		items, next, err := list(ctx, page)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		page.Cursor = next
	}
}

func newListOrgsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list-orgs",
		Short: "List organizations, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				orgs, err := all(ctx, svc.ListOrgs)
				if err != nil {
					return err
				}
				out := make([]httpapi.OrganizationJSON, len(orgs))
				for i, o := range orgs {
					out[i] = httpapi.NewOrganizationJSON(o)
				}
				return printList(cmd, asJSON, out, func(o httpapi.OrganizationJSON) string {
					return fmt.Sprintf("%s  %-30q  %v  %s", o.ID, o.Name, o.Products, o.CreatedAt)
				})
			}, &svc)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records as a JSON array")
	return cmd
}

func newListKeysCmd() *cobra.Command {
	var orgID string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list-keys --org ID",
		Short: "List an organization's API keys (never their plaintext), newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var svc *keys.Service
			var accts *accounts.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				if _, err := accts.Org(ctx, orgID); err != nil {
					return err
				}
				ks, err := all(ctx, func(ctx context.Context, p ports.Page) ([]apikey.Key, string, error) {
					return svc.ListForOperator(ctx, orgID, p)
				})
				if err != nil {
					return err
				}
				out := make([]httpapi.APIKeyJSON, len(ks))
				for i, k := range ks {
					out[i] = httpapi.NewAPIKeyJSON(k, "")
				}
				return printList(cmd, asJSON, out, func(k httpapi.APIKeyJSON) string {
					state := "active"
					if k.RevokedAt != nil {
						state = "revoked " + *k.RevokedAt
					}
					return fmt.Sprintf("%s  %-24q  %s…%s  %s", k.ID, k.Name, k.Prefix, k.Last4, state)
				})
			}, &svc, &accts)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records as a JSON array")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}
