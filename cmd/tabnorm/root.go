package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.uber.org/fx"

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
	root.AddCommand(newServeCmd(), newMigrateCmd(), newAdminCmd(), newLicenseCmd(), newNormalizeCmd())
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
	app := fx.New(bootstrap.Admin(cfg, cmd.OutOrStdout()), fx.Populate(targets...))
	if err := app.Err(); err != nil {
		return err
	}
	ctx := cmd.Context()
	if err := app.Start(ctx); err != nil {
		return err
	}
	defer app.Stop(context.WithoutCancel(ctx)) //nolint:errcheck // nothing to do about a failed close here
	return fn(ctx)
}

// printRecord prints v as one JSON object with --json, else the text line.
func printRecord(cmd *cobra.Command, asJSON bool, v any, text string) error {
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(v)
	}
	_, err := fmt.Fprintln(cmd.OutOrStdout(), text)
	return err
}
