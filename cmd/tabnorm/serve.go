package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/bootstrap"
)

func newServeCmd() *cobra.Command {
	var role string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the service: API, dashboard and workers (--role picks a part)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := bootstrap.ParseRole(role)
			if err != nil {
				return usage(err)
			}
			cfg, err := loadConfig()
			if err != nil {
				return err
			}
			// Signals are caught before anything starts, so a SIGTERM during
			// start-up still leads to a graceful stop.
			sigCtx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stopSignals()
			app := fx.New(bootstrap.Serve(cfg, r, cmd.OutOrStdout()))
			if err := app.Err(); err != nil {
				return err
			}
			if _, err := bootstrap.AwaitMigrations(sigCtx, cfg); err != nil {
				return fmt.Errorf("migrations: %w", err)
			}
			startCtx, cancel := context.WithTimeout(context.Background(), app.StartTimeout())
			defer cancel()
			if err := app.Start(startCtx); err != nil {
				return err
			}
			<-sigCtx.Done()
			stopCtx, cancelStop := context.WithTimeout(context.Background(), app.StopTimeout())
			defer cancelStop()
			return app.Stop(stopCtx)
		},
	}
	cmd.Flags().StringVar(&role, "role", "all", "which part to run: api, worker or all")
	return cmd
}

func newMigrateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var db *sqlstore.DB
			return withAdmin(cmd, func(ctx context.Context) error {
				applied, err := bootstrap.Migrate(ctx, db, nil)
				if err != nil {
					return err
				}
				if len(applied) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "database is up to date")
				}
				for _, name := range applied {
					fmt.Fprintln(cmd.OutOrStdout(), "applied", name)
				}
				return nil
			}, &db)
		},
	}
}
