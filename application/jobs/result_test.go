package jobs

import (
	"testing"

	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

func TestNewResult(t *testing.T) {
	t.Parallel()
	sch, err := schema.Parse([]byte(`{"fields":[{"name":"a","type":"integer"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := normalize.Result{RowCount: 4, RejectedCount: 1, IssueCount: 2, IssuesTruncated: true,
		Detected:       []normalize.FileDetection{{Detection: table.Detection{Format: table.CSV, Encoding: "utf-8", Delimiter: ",", HeaderRow: 1}}},
		InferredSchema: sch,
		Profile:        []normalize.ColumnProfile{{Column: "A", Field: "a", Type: schema.Integer, Format: schema.Default, Rows: 4, NullCount: 1, DistinctCount: 3}}}
	got := NewResult(r)
	if got.RowCount != 4 || got.RejectedCount != 1 || got.IssueCount != 2 || !got.IssuesTruncated || string(got.Detected) != string(r.DetectedJSON()) ||
		string(got.InferredSchema) != string(sch.JSON()) || len(got.Profile) != 1 || got.Profile[0].NullRate != 0.25 || got.Profile[0].Type != "integer" {
		t.Fatalf("NewResult = %+v", got)
	}
	r.InferredSchema = nil
	if got := NewResult(r); got.InferredSchema != nil || got.Profile != nil {
		t.Fatalf("outside infer mode: %+v", got)
	}
}
