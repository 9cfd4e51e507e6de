package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// newChangeCmds are the jobs subcommands of a job's replacements and
// history (API.md §5.6): replace, history, undo, redo.
func newChangeCmds(asJSON *bool) []*cobra.Command {
	return []*cobra.Command{newJobsReplaceCmd(asJSON), newJobsHistoryCmd(asJSON), newJobsStepCmd(asJSON, "undo"), newJobsStepCmd(asJSON, "redo")}
}

func newJobsReplaceCmd(asJSON *bool) *cobra.Command {
	var req client.ReplacementRequest
	cmd := &cobra.Command{Use: "replace ID --field F --find TEXT --replace TEXT [--match exact|contains|regex] [--rejected] [--preview]",
		Short: "Find and replace over a field's cells of a succeeded job, one step of its history (--preview only counts)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			if rejected, _ := cmd.Flags().GetBool("rejected"); rejected {
				req.Status = "rejected"
			}
			r, err := c.Replace(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			id := "(preview)"
			if r.ID != nil {
				id = *r.ID
			}
			return printRaw(cmd, *asJSON, r.Raw, fmt.Sprintf("%s\t%d matched", id, r.Matched))
		}}
	f := cmd.Flags()
	f.StringVar(&req.Field, "field", "", "a field of the job's schema (required)")
	f.StringVar(&req.Find, "find", "", "the text, or RE2 regular expression, to find")
	f.StringVar(&req.Replace, "replace", "", "what a match becomes ($1 names a regex group)")
	f.StringVar(&req.Match, "match", "exact", "exact (whole cell), contains (case-insensitive) or regex")
	f.Bool("rejected", false, "change only the rows rejected now")
	f.BoolVar(&req.Preview, "preview", false, "count the matches; store nothing")
	_ = cmd.MarkFlagRequired("field")
	return cmd
}

func stepLine(s client.HistoryStep) string {
	state := "done"
	if s.Undone {
		state = "undone"
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s", s.Step, s.Kind, state, s.Summary)
}

func newJobsHistoryCmd(asJSON *bool) *cobra.Command {
	return &cobra.Command{Use: "history ID", Short: "List a job's history of edits and replacements, oldest first", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			h, err := c.History(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if *asJSON {
				return printRaw(cmd, true, h.Raw, "")
			}
			for _, s := range h.Data {
				if err := printRaw(cmd, false, nil, stepLine(s)); err != nil {
					return err
				}
			}
			return nil
		}}
}

// newJobsStepCmd is undo or redo.
func newJobsStepCmd(asJSON *bool, verb string) *cobra.Command {
	short := "Undo the newest step of a job's history not undone"
	if verb == "redo" {
		short = "Redo the oldest undone step of a job's history"
	}
	return &cobra.Command{Use: verb + " ID", Short: short, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient()
			if err != nil {
				return err
			}
			move := c.Undo
			if verb == "redo" {
				move = c.Redo
			}
			s, err := move(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printRaw(cmd, *asJSON, s.Raw, stepLine(*s))
		}}
}
