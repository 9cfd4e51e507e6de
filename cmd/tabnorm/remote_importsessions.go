package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// importSessionLine is a session on one line: id, status, jobs made of
// the most, language, origins, expiry.
func importSessionLine(s *client.ImportSession) string {
	jobs := "-"
	if s.JobCount != nil {
		jobs = fmt.Sprint(*s.JobCount)
	}
	return fmt.Sprintf("%s\t%s\tjobs %s/%d\t%s\t%s\texpires %s", s.ID, s.Status, jobs, s.MaxJobs, s.Locale, strings.Join(s.AllowedOrigins, ","), s.ExpiresAt)
}

func newImportSessionsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "import-sessions", Short: "Mint, list, show and revoke import sessions of the embedded importer"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print the API's objects as JSON")
	one := func(use, short string, fn func(cmd *cobra.Command, c *client.Client, id string) (*client.ImportSession, error), text func(*client.ImportSession) string) *cobra.Command {
		return &cobra.Command{Use: use + " ID", Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			s, err := fn(cmd, c, args[0])
			if err != nil {
				return err
			}
			return printRaw(cmd, asJSON, s.Raw, text(s))
		}}
	}
	cmd.AddCommand(newImportSessionsCreateCmd(&asJSON), newImportSessionsListCmd(&asJSON),
		one("show", "Show a session with its jobs and what a submit would report now",
			func(cmd *cobra.Command, c *client.Client, id string) (*client.ImportSession, error) {
				return c.GetImportSession(cmd.Context(), id)
			},
			importSessionDetails),
		one("revoke", "End a session at once: its secret is refused from the next request on",
			func(cmd *cobra.Command, c *client.Client, id string) (*client.ImportSession, error) {
				return c.RevokeImportSession(cmd.Context(), id)
			}, importSessionLine))
	return cmd
}

// importSessionDetails is a session's line, then a line a job (the jobs
// reruns replaced marked), then its summary.
func importSessionDetails(s *client.ImportSession) string {
	var b strings.Builder
	b.WriteString(importSessionLine(s))
	for _, j := range s.Jobs {
		mark := ""
		if j.Superseded {
			mark = "\tsuperseded"
		}
		fmt.Fprintf(&b, "\njob %s\t%s\t%d rows, %d valid, %d rejected%s", j.ID, j.Status, j.RowsRead, j.RowsValid, j.RowsRejected, mark)
	}
	if s.Summary != nil {
		fmt.Fprintf(&b, "\nsummary\t%d final jobs\t%d rows valid, %d rejected", len(s.Summary.Jobs), s.Summary.RowsValid, s.Summary.RowsRejected)
	}
	return b.String()
}

func newImportSessionsCreateCmd(asJSON *bool) *cobra.Command {
	var schema, schemaID, options, metadata, theme, texts, locale string
	var origins []string
	var expiresIn, maxJobs int
	create := &cobra.Command{Use: "create --origin O [--origin O…] (--schema S | --schema-id ID) [flags]",
		Short: "Mint a session for a test or a host app; prints its url and client secret once", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := client.ImportSessionParams{SchemaID: schemaID, AllowedOrigins: origins, ExpiresIn: expiresIn, MaxJobs: maxJobs, Locale: locale}
			var err error
			if p.Schema, err = jsonArg("schema", schema); err != nil {
				return err
			}
			if p.Options, err = jsonArg("options", options); err != nil {
				return err
			}
			if err := decodeArg("metadata", metadata, &p.Metadata); err != nil {
				return err
			}
			if err := decodeArg("theme", theme, &p.Theme); err != nil {
				return err
			}
			if err := decodeArg("texts", texts, &p.Texts); err != nil {
				return err
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			s, err := c.CreateImportSession(cmd.Context(), p)
			if err != nil {
				return err
			}
			return printRaw(cmd, *asJSON, s.Raw, importSessionLine(s)+"\nurl "+s.URL+"\nclient_secret "+s.ClientSecret+" (shown once: hand it to the page now)")
		}}
	f := create.Flags()
	f.StringSliceVar(&origins, "origin", nil, "an origin that may frame the importer, e.g. https://app.example.com (repeat)")
	f.StringVar(&schema, "schema", "", "target schema: a JSON file or inline JSON")
	f.StringVar(&schemaID, "schema-id", "", "a saved schema's id, instead of --schema")
	f.StringVar(&options, "options", "", "the jobs' options: a JSON file or inline JSON")
	f.StringVar(&metadata, "metadata", "", "a JSON object the session's jobs carry")
	f.StringVar(&theme, "theme", "", "the importer's theme: a JSON file or inline JSON (docs/embed.md)")
	f.StringVar(&texts, "texts", "", "messages to replace, by key: a JSON file or inline JSON")
	f.StringVar(&locale, "locale", "", "en (default), de, fr, es, it, pt, nl or auto")
	f.IntVar(&expiresIn, "expires-in", 0, "lifetime in seconds, 60 to 86400 (default 3600)")
	f.IntVar(&maxJobs, "max-jobs", 0, "jobs the session may make, 1 to 100 (default 5)")
	_ = create.MarkFlagRequired("origin")
	return create
}

// decodeArg reads a JSON document given inline or as a file into v.
func decodeArg(name, value string, v any) error {
	raw, err := jsonArg(name, value)
	if err != nil || raw == nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return usage(fmt.Errorf("--%s: %w", name, err))
	}
	return nil
}

func newImportSessionsListCmd(asJSON *bool) *cobra.Command {
	var status string
	list := &cobra.Command{Use: "list [--status open|submitted|expired|revoked]", Short: "List the organization's sessions, newest first",
		Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
			switch status {
			case "", "open", "submitted", "expired", "revoked":
			default:
				return usage(fmt.Errorf("--status must be open, submitted, expired or revoked"))
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			for s, err := range c.ImportSessions(cmd.Context(), 0) {
				if err != nil {
					return err
				}
				if status != "" && s.Status != status {
					continue
				}
				if err := printRaw(cmd, *asJSON, s.Raw, importSessionLine(s)); err != nil {
					return err
				}
			}
			return nil
		}}
	list.Flags().StringVar(&status, "status", "", "only the sessions in this status")
	return list
}
