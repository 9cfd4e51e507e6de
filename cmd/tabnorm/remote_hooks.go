package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// hookLine is a hook on one line: id, name, enabled, URL, timeout and
// concurrency.
func hookLine(h *client.Hook) string {
	state := "enabled"
	if !h.Enabled {
		state = "disabled"
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%d ms\t%d in flight", h.ID, h.Name, state, h.URL, h.TimeoutMS, h.Concurrency)
}

func hookWithSecret(h *client.Hook) string {
	return hookLine(h) + "\nsecret " + h.Secret + " (shown once: store it now)"
}

func newHooksCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "hooks", Short: "Manage validation hooks (the organization's services that check a job's rows) on a tabnorm server"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print the API's objects as JSON")
	one := func(use, short string, fn func(cmd *cobra.Command, c *client.Client, id string) (*client.Hook, string, error)) *cobra.Command {
		return &cobra.Command{Use: use + " ID", Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			h, line, err := fn(cmd, c, args[0])
			if err != nil {
				return err
			}
			return printRaw(cmd, asJSON, h.Raw, line)
		}}
	}
	set := func(enabled bool) func(cmd *cobra.Command, c *client.Client, id string) (*client.Hook, string, error) {
		return func(cmd *cobra.Command, c *client.Client, id string) (*client.Hook, string, error) {
			h, err := c.UpdateHook(cmd.Context(), id, client.HookPatch{Enabled: &enabled})
			if err != nil {
				return nil, "", err
			}
			return h, hookLine(h), nil
		}
	}
	cmd.AddCommand(newHooksCreateCmd(&asJSON), newHooksListCmd(&asJSON),
		one("get", "Show a hook (never its secret)", func(cmd *cobra.Command, c *client.Client, id string) (*client.Hook, string, error) {
			h, err := c.GetHook(cmd.Context(), id)
			if err != nil {
				return nil, "", err
			}
			return h, hookLine(h), nil
		}),
		one("rotate-secret", "Give a hook a new secret (the old one signs too for 24 h)", func(cmd *cobra.Command, c *client.Client, id string) (*client.Hook, string, error) {
			h, err := c.RotateHookSecret(cmd.Context(), id)
			if err != nil {
				return nil, "", err
			}
			return h, hookWithSecret(h), nil
		}),
		one("enable", "Enable a hook (also closes its circuit breaker)", set(true)),
		one("disable", "Disable a hook: jobs whose schema names it are refused", set(false)),
		&cobra.Command{Use: "delete ID", Short: "Delete a hook", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			if err := c.DeleteHook(cmd.Context(), args[0]); err != nil {
				return err
			}
			return printRaw(cmd, asJSON, []byte(`{"id":"`+args[0]+`","deleted":true}`), "deleted "+args[0])
		}},
	)
	return cmd
}

func newHooksCreateCmd(asJSON *bool) *cobra.Command {
	var timeoutMS int64
	var concurrency int
	create := &cobra.Command{Use: "create NAME URL [--timeout-ms N] [--concurrency N]", Short: "Register a hook; prints its secret once", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			h, err := c.CreateHook(cmd.Context(), client.HookParams{Name: args[0], URL: args[1], TimeoutMS: timeoutMS, Concurrency: concurrency})
			if err != nil {
				return err
			}
			return printRaw(cmd, *asJSON, h.Raw, hookWithSecret(h))
		}}
	create.Flags().Int64Var(&timeoutMS, "timeout-ms", 0, "how long one batch may take, 100 to 30000 (default 5000)")
	create.Flags().IntVar(&concurrency, "concurrency", 0, "batches in flight at once, 1 to 16 (default 4)")
	return create
}

func newHooksListCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "list", Short: "List the organization's hooks, newest first", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		for h, err := range c.Hooks(cmd.Context(), client.ListParams{}) {
			if err != nil {
				return err
			}
			if err := printRaw(cmd, *asJSON, h.Raw, hookLine(h)); err != nil {
				return err
			}
		}
		return nil
	}}
}
