package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

func newJobsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "jobs", Short: "Create and read jobs on a tabnorm server"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print the API's objects as JSON")
	cmd.AddCommand(newJobsCreateCmd(&asJSON))
	one := func(use, short string, fn func(cmd *cobra.Command, c *client.Client, id string) error) *cobra.Command {
		return &cobra.Command{Use: use + " ID", Short: short, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			return fn(cmd, c, args[0])
		}}
	}
	cmd.AddCommand(one("get", "Show a job", func(cmd *cobra.Command, c *client.Client, id string) error {
		j, err := c.GetJob(cmd.Context(), id)
		if err != nil {
			return err
		}
		return printRaw(cmd, asJSON, j.Raw, jobLine(j))
	}), one("cancel", "Cancel a queued or running job", func(cmd *cobra.Command, c *client.Client, id string) error {
		j, err := c.CancelJob(cmd.Context(), id)
		if err != nil {
			return err
		}
		return printRaw(cmd, asJSON, j.Raw, jobLine(j))
	}), one("delete", "Delete a job, its file and its results", func(cmd *cobra.Command, c *client.Client, id string) error {
		if err := c.DeleteJob(cmd.Context(), id); err != nil {
			return err
		}
		return printRaw(cmd, asJSON, []byte(`{"id":"`+id+`","deleted":true}`), "deleted "+id)
	}), one("errors", "Print a finished job's issues as JSON lines", func(cmd *cobra.Command, c *client.Client, id string) error {
		return download(cmd, c, id, "errors", "jsonl", "")
	}))
	var status string
	list := &cobra.Command{Use: "list [--status S]", Short: "List jobs, newest first", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		for j, err := range c.Jobs(cmd.Context(), client.ListParams{Status: status}) {
			if err != nil {
				return err
			}
			if err := printRaw(cmd, asJSON, j.Raw, jobLine(j)); err != nil {
				return err
			}
		}
		return nil
	}}
	list.Flags().StringVar(&status, "status", "", "only jobs in this state")
	var format, output string
	rows := &cobra.Command{Use: "rows ID [--format csv|jsonl|xlsx|parquet] [-o|--out FILE]", Short: "Download a succeeded job's rows", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		if format != "csv" && format != "jsonl" && format != "xlsx" && format != "parquet" {
			return usage(fmt.Errorf("--format must be csv, jsonl, xlsx or parquet"))
		}
		c, err := newClient()
		if err != nil {
			return err
		}
		return download(cmd, c, args[0], "rows", format, output)
	}}
	rows.Flags().StringVar(&format, "format", "jsonl", "csv, jsonl, xlsx or parquet")
	rows.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	rows.Flags().StringVar(&output, "out", "", "the same as --output")
	cmd.AddCommand(list, rows, newErrorsWorkbookCmd())
	cmd.AddCommand(newReviewCmds(&asJSON)...)
	cmd.AddCommand(newEditCmds(&asJSON)...)
	cmd.AddCommand(newChangeCmds(&asJSON)...)
	return cmd
}

// newErrorsWorkbookCmd downloads the annotated workbook of a job's issues.
func newErrorsWorkbookCmd() *cobra.Command {
	var output string
	var rejected bool
	cmd := &cobra.Command{Use: "errors-xlsx ID --out FILE [--rejected]", Short: "Download a finished job's rows with their issues marked, as an Excel workbook to fix and upload again", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		if output == "" {
			return usage(fmt.Errorf("--out FILE is required: a workbook is not for a terminal"))
		}
		c, err := newClient()
		if err != nil {
			return err
		}
		rc, err := c.ErrorsWorkbook(cmd.Context(), args[0], rejected)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		return saveDownload(rc, output, "errors", args[0])
	}}
	cmd.Flags().StringVarP(&output, "out", "o", "", "the workbook's file")
	cmd.Flags().BoolVar(&rejected, "rejected", false, "only the rows with an error")
	return cmd
}

// download copies a result byte for byte to stdout or a file.
func download(cmd *cobra.Command, c *client.Client, id, which, format, output string) error {
	rc, err := c.Download(cmd.Context(), id, which, format)
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }()
	if output == "" {
		if _, err := io.Copy(cmd.OutOrStdout(), rc); err != nil {
			return fmt.Errorf("download %s of %s: %w", which, id, err)
		}
		return nil
	}
	return saveDownload(rc, output, which, id)
}

func saveDownload(rc io.Reader, output, which, id string) error {
	f, err := os.Create(output)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, rc); err != nil {
		_ = f.Close()
		return fmt.Errorf("download %s of %s: %w", which, id, err)
	}
	return f.Close()
}

func newJobsCreateCmd(asJSON *bool) *cobra.Command {
	var schema, schemaID, mode, options, name string
	var wait, review bool
	cmd := &cobra.Command{
		Use:   "create FILE [--schema FILE|JSON | --schema-id ID] [--mode M] [--options FILE|JSON] [--review] [--wait]",
		Short: "Upload a file and start a job; with --wait, follow it until it ends (exit 1 unless it succeeded) or awaits its review",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := jobParams(schema, schemaID, mode, options, name)
			if err != nil {
				return err
			}
			if review {
				if p.Options, err = withReview(p.Options); err != nil {
					return err
				}
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usage(err)
			}
			defer func() { _ = f.Close() }()
			up := client.Upload{Filename: filepath.Base(args[0]), Body: f}
			if errOut := cmd.ErrOrStderr(); isTerminal(errOut) {
				if st, err := f.Stat(); err == nil {
					size := st.Size()
					up.Sent = func(n int64) {
						share := 1.0
						if size > 0 {
							share = float64(n) / float64(size)
						}
						bar(errOut, "upload", share, fmt.Sprintf("%d/%d bytes", n, size))
					}
				}
			}
			j, err := c.CreateJob(cmd.Context(), up, p)
			if up.Sent != nil {
				fmt.Fprintln(cmd.ErrOrStderr())
			}
			if err != nil {
				return err
			}
			if !wait {
				return printRaw(cmd, *asJSON, j.Raw, jobLine(j))
			}
			return follow(cmd.Context(), cmd, c, j.ID, *asJSON, true)
		},
	}
	cmd.Flags().StringVar(&schema, "schema", "", "target schema: a JSON file or inline JSON")
	cmd.Flags().StringVar(&schemaID, "schema-id", "", "a saved schema's id, instead of --schema")
	cmd.Flags().StringVar(&mode, "mode", "", "normalize (default), validate or infer")
	cmd.Flags().StringVar(&options, "options", "", "options: a JSON file or inline JSON")
	cmd.Flags().StringVar(&name, "name", "", "a name for the job")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the job until it ends, or until it awaits its review")
	cmd.Flags().BoolVar(&review, "review", false, `stop the job after its sample for a person to review the mapping ("review": true in the options)`)
	return cmd
}

func jobParams(schema, schemaID, mode, options, name string) (client.JobParams, error) {
	s, err := jsonArg("schema", schema)
	if err != nil {
		return client.JobParams{}, err
	}
	o, err := jsonArg("options", options)
	if err != nil {
		return client.JobParams{}, err
	}
	return client.JobParams{Mode: mode, Schema: s, SchemaID: schemaID, Options: o, Name: name}, nil
}
