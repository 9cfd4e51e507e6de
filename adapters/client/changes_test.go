package client_test

import (
	"context"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// TestChanges_replaceUndoRedo: a preview counts, a replacement is stored
// and changes the records, and undo and redo walk the history, refusing
// at its end by code.
func TestChanges_replaceUndoRedo(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	j := finishedJob(t, c, "id,email\n1,ann@x.io\n2,bob@\n3,cy@\n4,dee@x.io\n")
	p, err := c.Replace(ctx, j.ID, client.ReplacementRequest{Field: "email", Find: "@$", Replace: "@x.io", Match: "regex", Preview: true})
	if err != nil || p.ID != nil || p.Matched != 2 || p.Raw == nil {
		t.Fatalf("preview %+v %v", p, err)
	}
	r, err := c.Replace(ctx, j.ID, client.ReplacementRequest{Field: "email", Find: "@$", Replace: "@x.io", Match: "regex", Status: "rejected"})
	if err != nil || r.ID == nil || r.Matched != 2 || r.Status != "rejected" {
		t.Fatalf("replacement %+v %v", r, err)
	}
	if page, err := c.RecordsPage(ctx, j.ID, client.RecordsQuery{Status: "rejected"}); err != nil || page.Total != 0 {
		t.Fatalf("rejected after the replacement %+v %v", page, err)
	}
	h, err := c.History(ctx, j.ID)
	if err != nil || len(h.Data) != 1 || h.Data[0].Kind != "replacement" || !h.CanUndo || h.CanRedo {
		t.Fatalf("history %+v %v", h, err)
	}
	if s, err := c.Undo(ctx, j.ID); err != nil || !s.Undone || s.Step != 1 {
		t.Fatalf("undo %+v %v", s, err)
	}
	if _, err := c.Undo(ctx, j.ID); !client.IsCode(err, "nothing_to_undo") {
		t.Fatalf("undo again: %v", err)
	}
	if s, err := c.Redo(ctx, j.ID); err != nil || s.Undone {
		t.Fatalf("redo %+v %v", s, err)
	}
	if _, err := c.Redo(ctx, j.ID); !client.IsCode(err, "nothing_to_redo") {
		t.Fatalf("redo again: %v", err)
	}
}
