package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

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
	cmd.AddCommand(newHooksCreateCmd(&asJSON), newHooksListCmd(&asJSON), newHooksTestCmd(&asJSON),
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

// errHookTestFailed: the hook's answer to a sample would fail a job's batch.
var errHookTestFailed = errors.New("the hook's answer would fail a job's batch")

func newHooksTestCmd(asJSON *bool) *cobra.Command {
	var rows string
	test := &cobra.Command{Use: "test ID --rows JSON", Short: "Send a hook a signed sample batch and print its answer; exits 1 when a job's batch would fail",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			var sample []client.HookSampleRow
			if err := json.Unmarshal([]byte(rows), &sample); err != nil {
				return usage(fmt.Errorf(`--rows must be a JSON array like [{"row":1,"values":{"email":"a@example.com"}}]: %w`, err))
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			ans, err := c.TestHook(cmd.Context(), args[0], sample)
			if err != nil {
				return err
			}
			if err := printRaw(cmd, *asJSON, ans.Raw, hookTestLines(ans)); err != nil {
				return err
			}
			if ans.Status != "succeeded" {
				return &exitError{code: 1, err: fmt.Errorf("%w: %s", errHookTestFailed, ans.Status)}
			}
			return nil
		}}
	test.Flags().StringVar(&rows, "rows", "", `the sample rows, a JSON array of {"row":N,"values":{…}} (1 to 100)`)
	_ = test.MarkFlagRequired("rows")
	return test
}

// hookTestLines prints a sample's answer: the status, then each row's
// issues and corrections, or why a job's batch would fail.
func hookTestLines(t *client.HookTest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", t.Status)
	if t.StatusCode != nil {
		fmt.Fprintf(&b, " (%d)", *t.StatusCode)
	}
	fmt.Fprintf(&b, " in %d ms", t.DurationMS)
	if t.Error != nil {
		fmt.Fprintf(&b, ": %s", *t.Error)
	}
	for _, r := range t.Rows {
		for _, is := range r.Issues {
			field := ""
			if is.Field != "" {
				field = " " + is.Field
			}
			fmt.Fprintf(&b, "\nrow %d%s: %s %s: %s", r.Row, field, is.Severity, is.Code, is.Message)
		}
		fields := make([]string, 0, len(r.Values))
		for f := range r.Values {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		for _, f := range fields {
			v := "null"
			if r.Values[f] != nil {
				v = fmt.Sprintf("%q", *r.Values[f])
			}
			fmt.Fprintf(&b, "\nrow %d %s: corrected to %s", r.Row, f, v)
		}
	}
	return b.String()
}
