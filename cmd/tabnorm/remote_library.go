package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

func newSchemasCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "schemas", Short: "Manage saved target schemas on a tabnorm server"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print the API's objects as JSON")
	line := func(s *client.Schema) string { return s.ID + "\t" + s.Name }
	cmd.AddCommand(&cobra.Command{Use: "list", Short: "List saved schemas", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		for s, err := range c.Schemas(cmd.Context(), client.ListParams{}) {
			if err != nil {
				return err
			}
			if err := printRaw(cmd, asJSON, s.Raw, line(s)); err != nil {
				return err
			}
		}
		return nil
	}}, &cobra.Command{Use: "create NAME FILE|JSON", Short: "Save a schema", Args: cobra.ExactArgs(2), RunE: func(cmd *cobra.Command, args []string) error {
		doc, err := jsonArg("schema", args[1])
		if err != nil {
			return err
		}
		c, err := newClient()
		if err != nil {
			return err
		}
		s, err := c.CreateSchema(cmd.Context(), args[0], doc)
		if err != nil {
			return err
		}
		return printRaw(cmd, asJSON, s.Raw, line(s))
	}}, &cobra.Command{Use: "get ID", Short: "Print a saved schema", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		s, err := c.GetSchema(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		return printRaw(cmd, asJSON, s.Raw, line(s)+"\n"+string(s.Schema))
	}}, &cobra.Command{Use: "delete ID", Short: "Delete a saved schema", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		if err := c.DeleteSchema(cmd.Context(), args[0]); err != nil {
			return err
		}
		return printRaw(cmd, asJSON, []byte(`{"id":"`+args[0]+`","deleted":true}`), "deleted "+args[0])
	}})
	return cmd
}

func newConnectCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "connect", Short: "The connect product: a file library and jobs over several files"}
	var asJSON bool
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print the API's objects as JSON")
	fileLine := func(f *client.File) string {
		return fmt.Sprintf("%s\t%s\t%s\t%d bytes", f.ID, f.Filename, f.Format, f.SizeBytes)
	}
	files := &cobra.Command{Use: "files", Short: "The connect file library"}
	files.AddCommand(&cobra.Command{Use: "upload FILE", Short: "Upload a file to the library", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		fh, err := os.Open(args[0])
		if err != nil {
			return usage(err)
		}
		defer func() { _ = fh.Close() }()
		f, err := c.UploadFile(cmd.Context(), client.Upload{Filename: filepath.Base(args[0]), Body: fh})
		if err != nil {
			return err
		}
		return printRaw(cmd, asJSON, f.Raw, fileLine(f))
	}}, &cobra.Command{Use: "list", Short: "List the library's files", Args: cobra.NoArgs, RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		for f, err := range c.Files(cmd.Context(), client.ListParams{}) {
			if err != nil {
				return err
			}
			if err := printRaw(cmd, asJSON, f.Raw, fileLine(f)); err != nil {
				return err
			}
		}
		return nil
	}}, &cobra.Command{Use: "delete ID", Short: "Delete a file of the library", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		c, err := newClient()
		if err != nil {
			return err
		}
		if err := c.DeleteFile(cmd.Context(), args[0]); err != nil {
			return err
		}
		return printRaw(cmd, asJSON, []byte(`{"id":"`+args[0]+`","deleted":true}`), "deleted "+args[0])
	}})
	var fileIDs []string
	var schema, schemaID, mode, options, name string
	var wait bool
	create := &cobra.Command{Use: "create --file-id ID [--file-id ID…] [--schema …] [--wait]", Short: "Start a job over library files, read in order as one table", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := jobParams(schema, schemaID, mode, options, name)
			if err != nil {
				return err
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			j, err := c.CreateConnectJob(cmd.Context(), fileIDs, p)
			if err != nil {
				return err
			}
			if !wait {
				return printRaw(cmd, asJSON, j.Raw, jobLine(j))
			}
			return follow(cmd.Context(), cmd, c, j.ID, asJSON, true)
		}}
	create.Flags().StringSliceVar(&fileIDs, "file-id", nil, "a library file (repeat, in order)")
	create.Flags().StringVar(&schema, "schema", "", "target schema: a JSON file or inline JSON")
	create.Flags().StringVar(&schemaID, "schema-id", "", "a saved schema's id, instead of --schema")
	create.Flags().StringVar(&mode, "mode", "", "normalize (default), validate or infer")
	create.Flags().StringVar(&options, "options", "", "options: a JSON file or inline JSON")
	create.Flags().StringVar(&name, "name", "", "a name for the job")
	create.Flags().BoolVar(&wait, "wait", false, "follow the job until it ends")
	_ = create.MarkFlagRequired("file-id")
	jobsCmd := &cobra.Command{Use: "jobs", Short: "Connect jobs"}
	jobsCmd.AddCommand(create)
	cmd.AddCommand(files, jobsCmd)
	return cmd
}
