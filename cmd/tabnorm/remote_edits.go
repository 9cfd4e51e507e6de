package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// newEditCmds are the jobs subcommands that fix single cells (API.md
// §5.6): rejected-rows, records, edit, edits.
func newEditCmds(asJSON *bool) []*cobra.Command {
	return []*cobra.Command{newJobsRejectedRowsCmd(asJSON), newJobsRecordsCmd(asJSON), newJobsEditCmd(asJSON), newJobsEditsCmd(asJSON)}
}

func newJobsEditCmd(asJSON *bool) *cobra.Command {
	var row int64
	var field, value, file string
	var clearCell bool
	cmd := &cobra.Command{Use: "edit ID --row N --field F (--value V | --clear) [--file FILE_ID]",
		Short: "Give one cell of a succeeded job's file a value (or clear it), checked at once; a rerun applies the job's edits", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			valueSet := cmd.Flags().Changed("value")
			if valueSet == clearCell {
				return usage(errors.New("give --value V, or --clear to clear the cell"))
			}
			e := client.Edit{Row: row, Field: field}
			if !clearCell {
				e.Value = &value
			}
			if file != "" {
				e.SourceFile = &file
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			added, err := c.AddEdits(cmd.Context(), args[0], []client.Edit{e})
			if err != nil {
				return err
			}
			if *asJSON {
				return printRaw(cmd, true, added.Raw, "")
			}
			for _, d := range added.Data {
				if err := printRaw(cmd, false, nil, editCheckLine(d)); err != nil {
					return err
				}
			}
			return nil
		}}
	cmd.Flags().Int64Var(&row, "row", 0, "the row, 1-based as issues number rows (required)")
	cmd.Flags().StringVar(&field, "field", "", "a field of the job's schema (required)")
	cmd.Flags().StringVar(&value, "value", "", "the cell's new text")
	cmd.Flags().BoolVar(&clearCell, "clear", false, "clear the cell (a missing value)")
	cmd.Flags().StringVar(&file, "file", "", "a connect job's file id, as its issues name it")
	_ = cmd.MarkFlagRequired("row")
	_ = cmd.MarkFlagRequired("field")
	return cmd
}

// editCheckLine says an edit and what its row now is: row, file, field,
// value ("(cleared)"), then "valid" or "rejected" with the row's issues.
func editCheckLine(d client.EditCheck) string {
	state := "valid"
	if !d.RowValid {
		state = "rejected"
	}
	var issues []string
	for _, is := range d.RowIssues {
		issues = append(issues, issueWords(is))
	}
	return strings.TrimRight(fmt.Sprintf("%s\t%s\t%s", editLine(d.Edit), state, strings.Join(issues, "; ")), "\t")
}

func editLine(e client.Edit) string {
	file, value := "-", "(cleared)"
	if e.SourceFile != nil {
		file = *e.SourceFile
	}
	if e.Value != nil {
		value = oneLine(*e.Value)
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s", e.Row, file, e.Field, value)
}

func issueWords(is client.Issue) string {
	f := "-"
	if is.Field != nil {
		f = *is.Field
	}
	return fmt.Sprintf("%s %s: %s", f, is.Code, oneLine(is.Message))
}

func newJobsEditsCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "edits ID", Short: "List a job's edits of single cells, by file, row and field (a rerun: the edits it ran with)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			for e, err := range c.Edits(cmd.Context(), args[0]) {
				if err != nil {
					return err
				}
				if err := printRaw(cmd, *asJSON, e.Raw, editLine(*e)); err != nil {
					return err
				}
			}
			return nil
		}}
}

func newJobsRejectedRowsCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "rejected-rows ID", Short: "List the rows a succeeded job rejected, each as it would now come out with the job's edits", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			for r, err := range c.RejectedRows(cmd.Context(), args[0]) {
				if err != nil {
					return err
				}
				if err := printRaw(cmd, *asJSON, r.Raw, rejectedRowLine(r)); err != nil {
					return err
				}
			}
			return nil
		}}
}

// rejectedRowLine says a rejected row: row, file, "valid" or "rejected",
// and its issues with the values they are about.
func rejectedRowLine(r *client.RejectedRow) string {
	file, state := "-", "rejected"
	if r.SourceFile != nil {
		file = *r.SourceFile
	}
	if r.Valid {
		state = "valid"
	}
	var issues []string
	for _, is := range r.Issues {
		w := issueWords(is)
		if is.Value != nil {
			w += fmt.Sprintf(" (%q)", *is.Value)
		}
		issues = append(issues, w)
	}
	return strings.TrimRight(fmt.Sprintf("%d\t%s\t%s\t%s", r.Row, file, state, strings.Join(issues, "; ")), "\t")
}

func newJobsRecordsCmd(asJSON *bool) *cobra.Command {
	var q client.RecordsQuery
	var most int
	cmd := &cobra.Command{Use: "records ID [--status all|valid|rejected] [--field F] [--code C] [--q TEXT] [--sort F [--desc]] [--offset N] [--max N]",
		Short: "List a succeeded job's records as they now come out, valid and rejected, filtered, searched or sorted", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			if most > 0 && most < 500 {
				q.Limit = most // no more than needed in one page
			}
			n := 0
			for r, err := range c.Records(cmd.Context(), args[0], q) {
				if err != nil {
					return err
				}
				if err := printRaw(cmd, *asJSON, r.Raw, recordLine(r)); err != nil {
					return err
				}
				if n++; most > 0 && n == most {
					return nil
				}
			}
			return nil
		}}
	f := cmd.Flags()
	f.StringVar(&q.Status, "status", "", "all (default), valid or rejected")
	f.StringVar(&q.Field, "field", "", "only records with an issue of this field")
	f.StringVar(&q.Code, "code", "", "only records with an issue of this code")
	f.StringVar(&q.Q, "q", "", "only records with a cell containing this text (any case)")
	f.StringVar(&q.Sort, "sort", "", "order by this field's typed value (nulls last)")
	f.BoolVar(&q.Desc, "desc", false, "sort downwards")
	f.Int64Var(&q.Offset, "offset", 0, "start at this position of the filtered, sorted list")
	f.IntVar(&most, "max", 0, "list at most this many records (0: all)")
	return cmd
}

// recordLine says a record: row, file, "valid" or "rejected", and its
// issues with the values they are about.
func recordLine(r *client.Record) string {
	return rejectedRowLine(&client.RejectedRow{Row: r.Row, SourceFile: r.SourceFile, Valid: r.Valid, Issues: r.Issues})
}
