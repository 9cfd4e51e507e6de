package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// destinationLine is a destination on one line: id, type, name, and its
// shown settings (never a secret).
func destinationLine(d *client.Destination) string {
	keys := make([]string, 0, len(d.Config))
	for k := range d.Config {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	settings := make([]string, 0, len(keys))
	for _, k := range keys {
		if d.Config[k] != "" {
			settings = append(settings, k+"="+d.Config[k])
		}
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s", d.ID, d.Type, d.Name, strings.Join(settings, " "))
}

// rowsDeliveryLine is a delivery on one line.
func rowsDeliveryLine(d *client.RowsDelivery) string {
	last := "-"
	if d.LastError != nil {
		last = oneLine(*d.LastError)
	}
	return fmt.Sprintf("%s\t%s\t%s\tattempts %d\trows %d\t%s", d.ID, d.JobID, d.Status, d.Attempts, d.Rows, last)
}

func newDestinationsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "destinations", Short: "Manage the destinations a tabnorm server delivers jobs' rows to"}
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
	cmd.AddCommand(newDestinationsCreateCmd(&asJSON),
		newDestinationsListCmd(&asJSON),
		one("show", "Show a destination and its recent deliveries (never its secrets)", func(cmd *cobra.Command, c *client.Client, id string) error {
			return showDestination(cmd, c, id, asJSON)
		}),
		one("test", "Connect to a destination and prove it takes writes", func(cmd *cobra.Command, c *client.Client, id string) error {
			r, err := c.TestDestination(cmd.Context(), id)
			if err != nil {
				return err
			}
			if !r.OK {
				return fmt.Errorf("test of %s failed: %s", id, *r.Error)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), "ok "+id)
			return err
		}),
		one("delete", "Delete a destination and its deliveries", func(cmd *cobra.Command, c *client.Client, id string) error {
			if err := c.DeleteDestination(cmd.Context(), id); err != nil {
				return err
			}
			return printRaw(cmd, asJSON, []byte(`{"id":"`+id+`","deleted":true}`), "deleted "+id)
		}),
	)
	return cmd
}

func newDestinationsCreateCmd(asJSON *bool) *cobra.Command {
	var name string
	var settings []string
	create := &cobra.Command{Use: "create s3|postgres|http --name N --set key=value [--set key=value…]",
		Short: "Add a destination; secrets given with --set are stored sealed and never shown again", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := map[string]string{}
			for _, kv := range settings {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return usage(fmt.Errorf("--set %q: want key=value", kv))
				}
				cfg[k] = v
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			d, err := c.CreateDestination(cmd.Context(), client.DestinationParams{Name: name, Type: args[0], Config: cfg})
			if err != nil {
				return err
			}
			line := destinationLine(d)
			if d.SigningSecret != "" {
				line += "\nsigning secret " + d.SigningSecret + " (shown once: store it now)"
			}
			return printRaw(cmd, *asJSON, d.Raw, line)
		}}
	create.Flags().StringVar(&name, "name", "", "what the destination is called")
	create.Flags().StringArrayVar(&settings, "set", nil, "a setting: postgres url, table; s3 bucket, prefix, region, endpoint, format, access_key_id, secret_access_key; http url (repeat)")
	_ = create.MarkFlagRequired("name")
	return create
}

func newDestinationsListCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "list", Short: "List the organization's destinations, newest first", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		for d, err := range c.Destinations(cmd.Context(), client.ListParams{}) {
			if err != nil {
				return err
			}
			if err := printRaw(cmd, *asJSON, d.Raw, destinationLine(d)); err != nil {
				return err
			}
		}
		return nil
	}}
}

// showDestination prints a destination and its 20 latest deliveries.
func showDestination(cmd *cobra.Command, c *client.Client, id string, asJSON bool) error {
	d, err := c.GetDestination(cmd.Context(), id)
	if err != nil {
		return err
	}
	if err := printRaw(cmd, asJSON, d.Raw, destinationLine(d)); err != nil {
		return err
	}
	n := 0
	for p, err := range c.DestinationDeliveries(cmd.Context(), id, client.ListParams{PageSize: 20}) {
		if err != nil || n == 20 {
			return err
		}
		n++
		if err := printRaw(cmd, asJSON, p.Raw, rowsDeliveryLine(p)); err != nil {
			return err
		}
	}
	return nil
}
