package review

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
)

func ptr[T any](v T) *T { return &v }

// TestReview_mappingAndConfirmed: a review's mapping says where each
// column goes (nothing, for an unmapped one), and its confirmation maps
// each header, leaving out one two files map differently.
func TestReview_mappingAndConfirmed(t *testing.T) {
	t.Parallel()
	ev := &match.Evidence{Header: 0.9, Values: 1, Matched: "email"}
	r := Review{Columns: []Column{
		{SourceFile: ptr("file_a"), SourceColumn: "Mail", Field: ptr("email"), Method: ptr(match.MethodSynonym), Confidence: ptr(0.91), Evidence: ev},
		{SourceFile: ptr("file_a"), SourceColumn: "Notes", Ignored: true},
		{SourceFile: ptr("file_b"), SourceColumn: "Mail", Field: ptr("email"), Method: ptr(match.MethodExact), Confidence: ptr(1.0)},
		{SourceFile: ptr("file_b"), SourceColumn: "Notes", Field: ptr("notes"), Method: ptr(match.MethodExact), Confidence: ptr(1.0)},
	}}
	m := r.Mapping()
	if len(m) != 4 || m[0] != (match.Entry{SourceFile: "file_a", SourceColumn: "Mail", Field: "email", Method: "synonym", Confidence: 0.91, Evidence: ev}) ||
		m[1] != (match.Entry{SourceFile: "file_a", SourceColumn: "Notes"}) {
		t.Fatalf("mapping %+v", m)
	}
	if got := fmt.Sprint(r.Confirmed()); got != "map[Mail:email]" {
		t.Fatalf("confirmed %s; want Mail mapped and Notes, which the files map differently, left out", got)
	}
}

// TestReview_blocked: a review with blocking problems refuses a
// confirmation with the first one's code and each one in errors.
func TestReview_blocked(t *testing.T) {
	t.Parallel()
	if err := (Review{}).Blocked(); err != nil {
		t.Fatalf("no blocking problem: %v", err)
	}
	r := Review{Blocking: []Blocker{{Code: domain.CodeRequiredFieldUnmapped, Field: ptr("email"), Message: "m1"}, {Code: domain.CodeNoColumnsMapped, Message: "m2"}}}
	var e *domain.Error
	if err := r.Blocked(); !errors.As(err, &e) || e.Code != domain.CodeRequiredFieldUnmapped || !errors.Is(err, domain.ErrInvalid) ||
		fmt.Sprint(e.Fields) != "[{mapping.email m1} {mapping m2}]" {
		t.Fatalf("blocked: %#v", err)
	}
}
