package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

// JobHistory is the suite of ports.JobHistory, and of the parts of
// ports.JobEdits that read it (Replacements, Version) or serve undo
// (Delete).
func JobHistory(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"add_then_steps_oldest_first_with_their_payloads", historyAddThenSteps},
		{"a_new_step_discards_the_undone_ones", historyDiscardsUndone},
		{"replacements_in_force_skip_undone_steps_and_change_the_version", historyReplacements},
		{"another_organizations_job_is_not_found", historyIsolated},
		{"delete_removes_only_the_cells_named", editsDelete},
	})
}

func replacementStep(n int64, find string) normalize.HistoryStep {
	return normalize.HistoryStep{Step: n, Kind: normalize.StepReplacement, ID: "rpl_" + find, At: now, Cells: 2, Summary: "country: " + find + " → DE (2 cells)",
		Status: "rejected", Replacement: &normalize.Replacement{Field: "country", Find: find, Replace: "DE", Match: normalize.MatchExact, Step: n,
			Rows: map[string][]int64{"": {3, 7}}}}
}

func historyAddThenSteps(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	edits := normalize.HistoryStep{Step: 1, Kind: normalize.StepEdits, At: now, Cells: 1, Summary: "1 cell edited",
		Before: []normalize.Edit{{Row: 2, Field: "email", Value: str("old@x"), At: now.Add(-time.Hour)}},
		After:  []normalize.Edit{{Row: 2, Field: "email", Value: nil, At: now, Step: 1}}}
	ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, edits))
	ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, replacementStep(2, "Deutschland")))
	h, err := s.JobHistory.Steps(ctx, org.ID, j.ID)
	ok(t, err)
	if len(h) != 2 || h[0].Step != 1 || h[1].Step != 2 {
		t.Fatalf("JobHistory.Steps = %d steps %+v, want steps 1 and 2 in that order", len(h), h)
	}
	if b := h[0].Before; len(b) != 1 || b[0].Value == nil || *b[0].Value != "old@x" || h[0].After[0].Value != nil || h[0].After[0].Step != 1 {
		t.Fatalf("JobHistory.Steps step 1 = before %+v after %+v, want the cell's old value and its cleared edit of step 1", b, h[0].After)
	}
	r := h[1].Replacement
	if r == nil || r.Find != "Deutschland" || r.Step != 2 || len(r.Rows[""]) != 2 || h[1].Status != "rejected" || h[1].ID != "rpl_Deutschland" {
		t.Fatalf("JobHistory.Steps step 2 = %+v (replacement %+v), want the replacement with its rows, id and status", h[1], r)
	}
}

func historyDiscardsUndone(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	for i, f := range []string{"A", "B", "C"} {
		ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, replacementStep(int64(i+1), f)))
	}
	ok(t, s.JobHistory.SetUndone(ctx, org.ID, j.ID, 3, true))
	ok(t, s.JobHistory.SetUndone(ctx, org.ID, j.ID, 2, true))
	ok(t, s.JobHistory.SetUndone(ctx, org.ID, j.ID, 2, false))
	ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, replacementStep(4, "D")))
	h, err := s.JobHistory.Steps(ctx, org.ID, j.ID)
	ok(t, err)
	var got []int64
	for _, st := range h {
		got = append(got, st.Step)
		if st.Undone {
			t.Fatalf("JobHistory.Steps after a new step has step %d undone, want the undone steps discarded", st.Step)
		}
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 4 {
		t.Fatalf("JobHistory.Steps after undoing 3 and adding 4 = %v, want [1 2 4]", got)
	}
	if err := s.JobHistory.SetUndone(ctx, org.ID, j.ID, 3, true); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("JobHistory.SetUndone of a discarded step = %v, want not found", err)
	}
}

func historyReplacements(t *testing.T, s Stores) {
	ctx := context.Background()
	org := seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	v0, err := s.JobEdits.Version(ctx, org.ID, j.ID)
	ok(t, err)
	ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, replacementStep(1, "A")))
	ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, replacementStep(2, "B")))
	v2, err := s.JobEdits.Version(ctx, org.ID, j.ID)
	ok(t, err)
	ok(t, s.JobHistory.SetUndone(ctx, org.ID, j.ID, 2, true))
	v1, err := s.JobEdits.Version(ctx, org.ID, j.ID)
	ok(t, err)
	if v0 == v2 || v1 == v2 || v0 == v1 {
		t.Fatalf("JobEdits.Version = %q, %q, %q with no, two and one replacement in force; want three versions", v0, v2, v1)
	}
	rs, err := s.JobEdits.Replacements(ctx, org.ID, j.ID)
	ok(t, err)
	if len(rs) != 1 || rs[0].Find != "A" || rs[0].Step != 1 || len(rs[0].Rows[""]) != 2 {
		t.Fatalf("JobEdits.Replacements with step 2 undone = %+v, want only step 1's, with its rows", rs)
	}
}

func historyIsolated(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	ok(t, s.JobHistory.Add(ctx, org.ID, j.ID, replacementStep(1, "A")))
	if err := s.JobHistory.Add(ctx, other.ID, j.ID, replacementStep(2, "B")); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("JobHistory.Add through another organization = %v, want not found", err)
	}
	if err := s.JobHistory.SetUndone(ctx, other.ID, j.ID, 1, true); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("JobHistory.SetUndone through another organization = %v, want not found", err)
	}
	h, err := s.JobHistory.Steps(ctx, other.ID, j.ID)
	ok(t, err)
	rs, err := s.JobEdits.Replacements(ctx, other.ID, j.ID)
	ok(t, err)
	if len(h) != 0 || len(rs) != 0 {
		t.Fatalf("JobHistory.Steps through another organization = %d steps, %d replacements; want none", len(h), len(rs))
	}
}

func editsDelete(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	j := seedJob(t, s, org.ID, now)
	_, err := s.JobEdits.Put(ctx, org.ID, j.ID, []normalize.Edit{
		{Row: 1, Field: "email", Value: str("a@x"), At: now, Step: 4},
		{Row: 2, Field: "email", Value: str("b@x"), At: now},
	}, ports.EditLimits{Count: 10})
	ok(t, err)
	ok(t, s.JobEdits.Delete(ctx, other.ID, j.ID, []normalize.EditKey{{Row: 2, Field: "email"}}))
	ok(t, s.JobEdits.Delete(ctx, org.ID, j.ID, []normalize.EditKey{{Row: 2, Field: "email"}, {Row: 9, Field: "email"}}))
	all, err := s.JobEdits.All(ctx, org.ID, j.ID)
	ok(t, err)
	if len(all) != 1 || all[0].Row != 1 || all[0].Step != 4 {
		t.Fatalf("JobEdits.All after deleting row 2's cell (and one through another organization) = %+v, want row 1's edit alone, of step 4", all)
	}
}
