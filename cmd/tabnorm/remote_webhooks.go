package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// webhookLine is an endpoint on one line: id, state, URL, events.
func webhookLine(w *client.Webhook) string {
	return fmt.Sprintf("%s\t%s\t%s\t%s", w.ID, w.State, w.URL, strings.Join(w.Events, ","))
}

// deliveryLine is a delivery on one line: id, event, status, attempts
// made, and the latest attempt's answer or error.
func deliveryLine(d *client.Delivery) string {
	last := "-"
	switch {
	case d.StatusCode != nil:
		last = fmt.Sprint(*d.StatusCode)
	case d.Error != nil:
		last = oneLine(*d.Error)
	}
	return fmt.Sprintf("%s\t%s\t%s\tattempts %d\t%s", d.ID, d.Type, d.Status, d.Attempt, last)
}

// withSecret adds the secret, shown once, below the endpoint's line.
func withSecret(w *client.Webhook) string {
	return webhookLine(w) + "\nsecret " + w.Secret + " (shown once: store it now)"
}

func newWebhooksCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Manage webhook endpoints and their deliveries on a tabnorm server"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print the API's objects as JSON")
	one := func(use, short string, fn func(cmd *cobra.Command, c *client.Client, id string) error) *cobra.Command {
		return &cobra.Command{Use: use + " ID", Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			return fn(cmd, c, args[0])
		}}
	}
	patched := func(cmd *cobra.Command, c *client.Client, id string, p client.WebhookPatch) error {
		w, err := c.UpdateWebhook(cmd.Context(), id, p)
		if err != nil {
			return err
		}
		return printRaw(cmd, asJSON, w.Raw, webhookLine(w))
	}
	yes, no := true, false
	cmd.AddCommand(newWebhooksCreateCmd(&asJSON), newWebhooksListCmd(&asJSON), newWebhooksUpdateCmd(&asJSON),
		one("get", "Show an endpoint (never its secret)", func(cmd *cobra.Command, c *client.Client, id string) error {
			w, err := c.GetWebhook(cmd.Context(), id)
			if err != nil {
				return err
			}
			return printRaw(cmd, asJSON, w.Raw, webhookLine(w))
		}),
		one("delete", "Delete an endpoint and its deliveries", func(cmd *cobra.Command, c *client.Client, id string) error {
			if err := c.DeleteWebhook(cmd.Context(), id); err != nil {
				return err
			}
			return printRaw(cmd, asJSON, []byte(`{"id":"`+id+`","deleted":true}`), "deleted "+id)
		}),
		one("rotate-secret", "Give an endpoint a new secret (the old one signs too for 24 h)", func(cmd *cobra.Command, c *client.Client, id string) error {
			w, err := c.RotateWebhookSecret(cmd.Context(), id)
			if err != nil {
				return err
			}
			return printRaw(cmd, asJSON, w.Raw, withSecret(w))
		}),
		one("test", "Send a webhook.test event to an endpoint", func(cmd *cobra.Command, c *client.Client, id string) error {
			d, err := c.TestWebhook(cmd.Context(), id)
			if err != nil {
				return err
			}
			return printRaw(cmd, asJSON, d.Raw, deliveryLine(d))
		}),
		one("deliveries", "List an endpoint's deliveries, newest first", func(cmd *cobra.Command, c *client.Client, id string) error {
			for d, err := range c.Deliveries(cmd.Context(), id, client.ListParams{}) {
				if err != nil {
					return err
				}
				if err := printRaw(cmd, asJSON, d.Raw, deliveryLine(d)); err != nil {
					return err
				}
			}
			return nil
		}),
		&cobra.Command{Use: "retry ID DELIVERY_ID", Short: "Make one more attempt, now, of a delivery that has ended", Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := newClient()
				if err != nil {
					return err
				}
				d, err := c.RetryDelivery(cmd.Context(), args[0], args[1])
				if err != nil {
					return err
				}
				return printRaw(cmd, asJSON, d.Raw, deliveryLine(d))
			}},
		one("pause", "Pause an endpoint: its deliveries wait without attempts", func(cmd *cobra.Command, c *client.Client, id string) error {
			return patched(cmd, c, id, client.WebhookPatch{Paused: &yes})
		}),
		one("resume", "Resume a paused endpoint, forgetting its failures and sending what waited", func(cmd *cobra.Command, c *client.Client, id string) error {
			return patched(cmd, c, id, client.WebhookPatch{Paused: &no})
		}),
	)
	return cmd
}

func newWebhooksCreateCmd(asJSON *bool) *cobra.Command {
	var events []string
	var description string
	create := &cobra.Command{Use: "create URL --event E [--event E…] [--description D]", Short: "Add an endpoint; prints its secret once", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			w, err := c.CreateWebhook(cmd.Context(), client.WebhookParams{URL: args[0], Events: events, Description: description})
			if err != nil {
				return err
			}
			return printRaw(cmd, *asJSON, w.Raw, withSecret(w))
		}}
	create.Flags().StringSliceVar(&events, "event", nil, "an event to deliver: job.started, job.awaiting_review, job.succeeded, job.failed, job.canceled (repeat)")
	create.Flags().StringVar(&description, "description", "", "what the endpoint is for")
	_ = create.MarkFlagRequired("event")
	return create
}

func newWebhooksListCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "list", Short: "List the organization's endpoints, newest first", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		for w, err := range c.Webhooks(cmd.Context(), client.ListParams{}) {
			if err != nil {
				return err
			}
			if err := printRaw(cmd, *asJSON, w.Raw, webhookLine(w)); err != nil {
				return err
			}
		}
		return nil
	}}
}

func newWebhooksUpdateCmd(asJSON *bool) *cobra.Command {
	var url, description string
	var events []string
	var enabled, paused bool
	update := &cobra.Command{Use: "update ID [--url U] [--event E…] [--description D] [--enabled=true|false] [--paused=true|false]",
		Short: "Change an endpoint; a flag left out leaves its field as it is", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var p client.WebhookPatch
			flags := cmd.Flags()
			if !(flags.Changed("url") || flags.Changed("event") || flags.Changed("description") || flags.Changed("enabled") || flags.Changed("paused")) {
				return usage(fmt.Errorf("update: nothing to change (--url, --event, --description, --enabled or --paused)"))
			}
			if flags.Changed("url") {
				p.URL = &url
			}
			if flags.Changed("event") {
				p.Events = events
			}
			if flags.Changed("description") {
				p.Description = &description
			}
			if flags.Changed("enabled") {
				p.Enabled = &enabled
			}
			if flags.Changed("paused") {
				p.Paused = &paused
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			w, err := c.UpdateWebhook(cmd.Context(), args[0], p)
			if err != nil {
				return err
			}
			return printRaw(cmd, *asJSON, w.Raw, webhookLine(w))
		}}
	update.Flags().StringVar(&url, "url", "", "the new URL")
	update.Flags().StringSliceVar(&events, "event", nil, "the events to deliver, instead of the current ones (repeat)")
	update.Flags().StringVar(&description, "description", "", "the new description")
	update.Flags().BoolVar(&enabled, "enabled", false, "enable (forgetting past failures) or disable the endpoint")
	update.Flags().BoolVar(&paused, "paused", false, "pause the endpoint, or resume it (=false)")
	return update
}
