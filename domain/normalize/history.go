package normalize

import (
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain"
)

// A finished job's history: each edit request and each replacement is a
// step, numbered from 1. Undo reverts the newest step not undone; redo
// applies again the oldest undone one; a new step discards the undone
// ones, so the undone steps are always the newest: the history is a stack
// with a cursor.

// The kinds of a step.
const (
	StepEdits       = "edits"
	StepReplacement = "replacement"
)

// HistoryStep is one step of a job's history.
type HistoryStep struct {
	Step int64
	Kind string
	// ID names a replacement (rpl_…); "" for edits.
	ID      string
	At      time.Time
	Cells   int64 // the cells it changed (edits) or matched (replacement)
	Summary string
	Undone  bool
	// Replacement is a replacement step's operation.
	Replacement *Replacement
	// Status is a replacement's status: all or rejected.
	Status string
	// Before are an edits step's cells' edits before it (a cell without
	// one had none); After the step's edits.
	Before, After []Edit
}

// History is a job's steps, oldest first.
type History []HistoryStep

// The conflicts of undo and redo.
var (
	ErrNothingToUndo = domain.Errorf(domain.ErrConflict, domain.CodeNothingToUndo, "There is no step to undo.")
	ErrNothingToRedo = domain.Errorf(domain.ErrConflict, domain.CodeNothingToRedo, "There is no undone step to redo.")
)

// Undoable returns the index of the step undo reverts: the newest not
// undone.
func (h History) Undoable() (int, error) {
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].Undone {
			return i, nil
		}
	}
	return -1, ErrNothingToUndo
}

// Redoable returns the index of the step redo applies: the oldest undone.
func (h History) Redoable() (int, error) {
	for i := range h {
		if h[i].Undone {
			return i, nil
		}
	}
	return -1, ErrNothingToRedo
}

// NextStep is the number of a new step: after every step and every edit's
// step (a rerun's edits may be of steps its history does not hold).
func (h History) NextStep(editsStep int64) int64 {
	n := editsStep
	for _, s := range h {
		n = max(n, s.Step)
	}
	return n + 1
}

// Replacements are the replacements in force: of the steps not undone.
func (h History) Replacements() []Replacement {
	var out []Replacement
	for _, s := range h {
		if s.Kind == StepReplacement && !s.Undone && s.Replacement != nil {
			out = append(out, *s.Replacement)
		}
	}
	return out
}

// EditsSummary says what an edits step did.
func EditsSummary(cells int) string {
	if cells == 1 {
		return "1 cell edited"
	}
	return fmt.Sprintf("%s cells edited", groupThousands(int64(cells)))
}

// ReplacementSummary says what a replacement step did.
func ReplacementSummary(r Replacement, matched int64) string {
	unit := "cells"
	if matched == 1 {
		unit = "cell"
	}
	return fmt.Sprintf("%s: %s → %s (%s %s)", r.Field, cut(r.Find, 40), cut(r.Replace, 40), groupThousands(matched), unit)
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func groupThousands(n int64) string {
	s := fmt.Sprint(n)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
