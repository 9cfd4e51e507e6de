package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

func newSetQuotaCmd() *cobra.Command {
	var orgID string
	var q job.Quota
	cmd := &cobra.Command{
		Use:   "set-quota --org ID [--rows-per-month N] [--storage-bytes N]",
		Short: "Set an organization's monthly row and storage quotas (0: no limit)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if q.RowsPerMonth < 0 || q.StorageBytes < 0 {
				return usage(fmt.Errorf("quotas are 0 (no limit) or positive"))
			}
			var orgs ports.Organizations
			var quotas ports.Quotas
			var tx ports.Transactor
			var trail ports.AuditLog
			return withAdmin(cmd, func(ctx context.Context) error {
				if _, err := orgs.Get(ctx, orgID); err != nil {
					return fmt.Errorf("organization %s: %w", orgID, err)
				}
				// The setting and its audit entry commit together.
				err := tx.InTx(ctx, func(ctx context.Context) error {
					now := time.Now()
					if err := quotas.Set(ctx, orgID, q, now); err != nil {
						return err
					}
					return trail.Record(ctx, identity.AuditEntry{ID: id.New("aud"), OrgID: orgID, Action: "quota.set", TargetID: orgID,
						UserAgent: "tabnorm admin", At: now})
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "quota of %s: %s rows a month, %s bytes of storage\n", orgID, orNone(q.RowsPerMonth), orNone(q.StorageBytes))
				return nil
			}, &orgs, &quotas, &tx, &trail)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().Int64Var(&q.RowsPerMonth, "rows-per-month", 0, "rows its jobs may read a calendar month (UTC); 0: no limit")
	cmd.Flags().Int64Var(&q.StorageBytes, "storage-bytes", 0, "bytes of source files it may store; 0: no limit")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}

func orNone(n int64) string {
	if n == 0 {
		return "no limit on"
	}
	return fmt.Sprint(n)
}
