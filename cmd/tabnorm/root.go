package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

	"github.com/tabnorm/tabnorm/adapters/queue"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/bootstrap"
)

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "tabnorm",
		Short:         "tabnorm turns messy tabular files into clean rows that conform to a target schema",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	root.Version = readBuildInfo().String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newServeCmd(), newMigrateCmd(), newAdminCmd(), newLicenseCmd(), newNormalizeCmd(), newVersionCmd(), newHealthcheckCmd())
	root.AddCommand(newRemoteCmds()...)
	return root
}

// loadConfig reads the settings; a bad setting is a usage error (exit 2).
func loadConfig() (bootstrap.Config, error) {
	cfg, err := bootstrap.LoadFromEnv()
	if err != nil {
		return cfg, usage(err)
	}
	return cfg, nil
}

// withAdmin starts the store and services without the server, runs fn with
// what it asked for through targets (pointers for fx.Populate), and stops.
func withAdmin(cmd *cobra.Command, fn func(ctx context.Context) error, targets ...any) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	var db *sqlstore.DB
	app := fx.New(bootstrap.Admin(cfg, cmd.OutOrStdout()), fx.Populate(append(targets, &db)...))
	if err := app.Err(); err != nil {
		return err
	}
	ctx := cmd.Context()
	if err := app.Start(ctx); err != nil {
		return err
	}
	defer app.Stop(context.WithoutCancel(ctx)) //nolint:errcheck // nothing to do about a failed close here
	if cmd.Name() != "migrate" {
		if err := checkMigrated(ctx, db); err != nil {
			return err
		}
	}
	return fn(ctx)
}

// printRecord prints v as one JSON object with --json, else the text
// line, either made safe for a terminal (terminal.go).
func printRecord(cmd *cobra.Command, asJSON bool, v any, text string) error {
	if asJSON {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", safeJSON(raw))
		return err
	}
	_, err := fmt.Fprintln(cmd.OutOrStdout(), safeText(text))
	return err
}

// checkMigrated turns the raw SQL error an operator command would hit on
// a new or outdated database ("no such table") into the one step to take.
func checkMigrated(ctx context.Context, db *sqlstore.DB) error {
	n, err := db.Pending(ctx)
	if err == nil && n == 0 {
		n, err = queue.Pending(ctx, db)
	}
	switch {
	case err != nil:
		return errors.New("the database is not set up for tabnorm: run tabnorm migrate")
	case n > 0:
		return errors.New("the database has migrations pending: run tabnorm migrate")
	}
	return nil
}
