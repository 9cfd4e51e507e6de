package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// newReviewCmds are the jobs subcommands of the review step and of value
// fixes (API.md §5.6): review, sheet, map, confirm, invalid-values, rerun.
func newReviewCmds(asJSON *bool) []*cobra.Command {
	return []*cobra.Command{newJobsReviewCmd(asJSON), newJobsSheetCmd(asJSON), newJobsMapCmd(asJSON), newJobsConfirmCmd(asJSON), newJobsInvalidValuesCmd(asJSON), newJobsRerunCmd(asJSON)}
}

func newJobsReviewCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "review ID", Short: "Show a job's review: where each column goes, what blocks confirming it, the sample's issues", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			r, err := c.Review(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printReview(cmd, *asJSON, r)
		}}
}

func newJobsSheetCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "sheet ID NAME", Short: "Read the sample of a job awaiting review again from another sheet of its workbook, and show the review of it", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			r, err := c.ChooseSheet(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return printReview(cmd, *asJSON, r)
		}}
}

func newJobsMapCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "map ID 'Source column=field'…", Short: "Change the mapping of a job awaiting review ('Column=' ignores the column) and show the review again", Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := mappingArgs(args[1:])
			if err != nil {
				return err
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			r, err := c.PatchMapping(cmd.Context(), args[0], m)
			if err != nil {
				return err
			}
			return printReview(cmd, *asJSON, r)
		}}
}

func newJobsConfirmCmd(asJSON *bool) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{Use: "confirm ID [--wait]", Short: "Confirm a job's review and queue it; with --wait, follow it until it ends (exit 1 unless it succeeded)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			j, err := c.Confirm(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if !wait {
				return printRaw(cmd, *asJSON, j.Raw, jobLine(j))
			}
			return follow(cmd.Context(), cmd, c, j.ID, *asJSON, false)
		}}
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the job until it ends")
	return cmd
}

func newJobsInvalidValuesCmd(asJSON *bool) *cobra.Command {
	var field string
	cmd := &cobra.Command{Use: "invalid-values ID --field F", Short: "List the distinct values of a field that made a succeeded job reject rows, most frequent first", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			for v, err := range c.InvalidValues(cmd.Context(), args[0], field) {
				if err != nil {
					return err
				}
				if err := printRaw(cmd, *asJSON, v.Raw, fmt.Sprintf("%s\t%d\t%s", v.Value, v.Count, v.Code)); err != nil {
					return err
				}
			}
			return nil
		}}
	cmd.Flags().StringVar(&field, "field", "", "a field of the job's schema (required)")
	_ = cmd.MarkFlagRequired("field")
	return cmd
}

func newJobsRerunCmd(asJSON *bool) *cobra.Command {
	var options string
	var maps []string
	var wait, backToMatching bool
	cmd := &cobra.Command{Use: "rerun ID [--options FILE|JSON] [--map 'Source column=field'…] [--review] [--wait]", Short: "Run an ended job again on the same file(s), with options and mapping changed; with --wait, follow the new job", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := jsonArg("options", options)
			if err != nil {
				return err
			}
			req := client.RerunRequest{Options: o, Review: backToMatching}
			if len(maps) > 0 {
				if req.Mapping, err = mappingArgs(maps); err != nil {
					return err
				}
			}
			c, err := newClient()
			if err != nil {
				return err
			}
			j, err := c.Rerun(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			if !wait {
				return printRaw(cmd, *asJSON, j.Raw, jobLine(j))
			}
			return follow(cmd.Context(), cmd, c, j.ID, *asJSON, true)
		}}
	cmd.Flags().StringVar(&options, "options", "", "options over the original's, key by key: a JSON file or inline JSON")
	cmd.Flags().StringArrayVar(&maps, "map", nil, "'Source column=field' over the original's mapping ('Column=' ignores it; repeat)")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the new job until it ends (or awaits its review)")
	cmd.Flags().BoolVar(&backToMatching, "review", false, "back to matching: the rerun awaits its review with the original's mapping proposed")
	return cmd
}

// mappingArgs reads 'Source column=field' arguments: the field is after
// the last '=' (headers may hold one, field names do not); an empty field
// ignores the column.
func mappingArgs(args []string) (map[string]*string, error) {
	m := make(map[string]*string, len(args))
	for _, a := range args {
		i := strings.LastIndexByte(a, '=')
		if i <= 0 {
			return nil, usage(fmt.Errorf("mapping %q: want 'Source column=field' ('Source column=' to ignore it)", a))
		}
		col, f := a[:i], strings.TrimSpace(a[i+1:])
		if _, dup := m[col]; dup {
			return nil, usage(fmt.Errorf("mapping: column %q given twice", col))
		}
		if f == "" {
			m[col] = nil
		} else {
			m[col] = &f
		}
	}
	return m, nil
}

// withReview sets "review": true in a job's options document.
func withReview(options json.RawMessage) (json.RawMessage, error) {
	o := map[string]json.RawMessage{}
	if len(options) > 0 {
		if err := json.Unmarshal(options, &o); err != nil || o == nil {
			return nil, usage(errors.New("--review needs --options to be a JSON object"))
		}
	}
	o["review"] = json.RawMessage("true")
	return json.Marshal(o)
}

// printReview prints a review as the server sent it (--json), else as a
// table of the columns and what the person must know to confirm it.
func printReview(cmd *cobra.Command, asJSON bool, r *client.Review) error {
	if asJSON {
		return printRaw(cmd, true, r.Raw, "")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\t%s\treview %s", r.JobID, r.JobStatus, r.Status)
	if r.ExpiresAt != nil {
		fmt.Fprintf(&b, ", expires %s", r.ExpiresAt.UTC().Format(time.RFC3339))
	}
	s := r.Sample
	fmt.Fprintf(&b, "\nsample: %d records, %d valid, %d rejected", s.Records, s.RowsValid, s.RowsRejected)
	if s.Complete {
		b.WriteString(" (the whole file)")
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE COLUMN\tFIELD\tMETHOD\tCONFIDENCE\tALTERNATIVES\tVALUES")
	for _, col := range r.Columns {
		name := col.SourceColumn
		if col.SourceFile != nil {
			name = *col.SourceFile + ": " + name
		}
		field, method, conf := "-", "", ""
		switch {
		case col.Ignored:
			field = "(ignored)"
		case col.Field != nil:
			field = *col.Field
		}
		if col.Method != nil {
			method = *col.Method
		}
		if col.Confidence != nil {
			conf = fmt.Sprintf("%.2f", *col.Confidence) + valuesNote(col.Evidence)
		}
		alts := make([]string, len(col.Alternatives))
		for i, a := range col.Alternatives {
			alts[i] = fmt.Sprintf("%s (%s %.2f%s)", a.Field, a.Method, a.Confidence, valuesNote(a.Evidence))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", oneLine(name), field, method, conf, strings.Join(alts, ", "), oneLine(strings.Join(col.Values, ", ")))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.UnmappedFields) > 0 {
		fmt.Fprintf(&b, "\nunmapped fields: %s\n", strings.Join(r.UnmappedFields, ", "))
	}
	for _, bl := range r.Blocking {
		fmt.Fprintf(&b, "blocking: %s: %s\n", bl.Code, bl.Message)
	}
	for _, ic := range r.IssueCounts {
		f := "-"
		if ic.Field != nil {
			f = *ic.Field
		}
		fmt.Fprintf(&b, "sample issues: %s %s %s ×%d\n", f, ic.Severity, ic.Code, ic.Count)
	}
	writeSheets(&b, r.Sheets)
	return printRaw(cmd, false, nil, strings.TrimRight(b.String(), "\n"))
}

// writeSheets lists a review's sheets, one a line: its name, its rows
// with a value, and "read" on the one the sample was read from.
func writeSheets(b *strings.Builder, sheets []client.ReviewSheet) {
	for _, sh := range sheets {
		name := sh.Name
		if sh.SourceFile != nil {
			name = *sh.SourceFile + ": " + name
		}
		rows := fmt.Sprintf("%d rows", sh.Rows)
		if !sh.Complete {
			rows = "at least " + rows
		}
		fmt.Fprintf(b, "sheet: %s, %s", oneLine(name), rows)
		if sh.Selected {
			b.WriteString(", read")
		}
		b.WriteString("\n")
	}
}

// oneLine keeps a header or value from breaking the table's lines.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// valuesNote says briefly what a mapping's values were read as: "; 97%
// email". Nothing when the values say nothing of the field.
func valuesNote(e *client.Evidence) string {
	if e == nil || e.Matched == "any" || e.Matched == "empty" || e.Matched == "" {
		return ""
	}
	return fmt.Sprintf("; %.0f%% %s", 100*e.Values, e.Matched)
}
