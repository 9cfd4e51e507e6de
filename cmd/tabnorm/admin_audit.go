package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain/identity"
)

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "audit", Short: "Read an organization's audit log"}
	cmd.AddCommand(newAuditExportCmd())
	return cmd
}

// newAuditExportCmd prints an organization's audit log as JSON lines,
// newest first, in the API's form (GET /v1/audit-events.jsonl).
func newAuditExportCmd() *cobra.Command {
	var orgID, since, until string
	var f identity.AuditFilter
	cmd := &cobra.Command{
		Use:   "export --org ID [--since T] [--until T] [--action A] [--actor ID] [--target ID]",
		Short: "Print an organization's audit log as JSON lines, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, t := range []struct {
				flag, value string
				dst         **time.Time
			}{{"--since", since, &f.Since}, {"--until", until, &f.Until}} {
				if t.value == "" {
					continue
				}
				at, err := time.Parse(time.RFC3339, t.value)
				if err != nil {
					return fmt.Errorf("%s %q: want an RFC 3339 time such as 2026-11-30T00:00:00Z", t.flag, t.value)
				}
				*t.dst = &at
			}
			var svc *audit.Service
			return withAdmin(cmd, func(ctx context.Context) error {
				w := bufio.NewWriter(cmd.OutOrStdout())
				err := svc.ExportForOperator(ctx, orgID, f, func(e identity.AuditEntry) error {
					line, err := json.Marshal(httpapi.NewAuditEventJSON(e))
					if err != nil {
						return err
					}
					_, _ = w.Write(line)
					return w.WriteByte('\n')
				})
				if err != nil {
					return err
				}
				return w.Flush()
			}, &svc)
		},
	}
	cmd.Flags().StringVar(&orgID, "org", "", "organization id (required)")
	cmd.Flags().StringVar(&since, "since", "", "entries at or after this RFC 3339 time")
	cmd.Flags().StringVar(&until, "until", "", "entries before this RFC 3339 time")
	cmd.Flags().StringVar(&f.Action, "action", "", "entries of this action, e.g. api_key.create")
	cmd.Flags().StringVar(&f.Actor, "actor", "", "entries by this user, key or import session id")
	cmd.Flags().StringVar(&f.Target, "target", "", "entries about this id")
	_ = cmd.MarkFlagRequired("org")
	return cmd
}
