package httpapi

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

func goldenJobs() []job.Job {
	created := time.Date(2026, 11, 22, 9, 0, 0, 123e6, time.FixedZone("CET", 3600))
	started := created.Add(2 * time.Second)
	finished := started.Add(1500 * time.Millisecond)
	return []job.Job{
		{ID: "job_1", OrgID: "org_1", Name: "Q3 <contacts> & co", Mode: "normalize", Status: job.Succeeded, SourceType: "connect",
			Files:    []job.File{{ID: "file_1", Filename: "a.csv", Format: "csv", SizeBytes: 10, SHA256: "ab"}, {ID: "file_2", Filename: "b.xlsx", Format: "xlsx", SizeBytes: 20, SHA256: "cd"}},
			SchemaID: "sch_1", Schema: []byte(`{"fields": [{"name":"a"}]}`), Options: []byte(`{"trim": true}`),
			Progress: job.Progress{RowsRead: 7, RowsValid: 5, RowsRejected: 2, BytesRead: 25, BytesTotal: 30},
			Mapping:  []byte(`[{"source_column":"A","field":"a","method":"exact","confidence":1}]`), Result: &goldenJobResult,
			Attempts: 2, CreatedAt: created, StartedAt: &started, FinishedAt: &finished},
		{ID: "job_2", OrgID: "org_1", Mode: "infer", Status: job.Failed, SourceType: "upload", Options: []byte(`{}`),
			Progress: job.Progress{RowsRead: 1, BytesRead: 1, BytesTotal: 3}, Failure: &job.Failure{Code: "job_timeout", Message: "The job ran longer than 1h0m0s."},
			Attempts: 1, CreatedAt: created, StartedAt: &started, FinishedAt: &finished},
		{ID: "job_3", OrgID: "org_1", Mode: "validate", Status: job.Queued, SourceType: "upload", CreatedAt: created},
	}
}

// goldenJobResult is the job's own record of goldenResult, which job_1
// carries: its job object's result is then the result object below it.
var goldenJobResult = jobs.NewResult(goldenResult())

func goldenResult() normalize.Result {
	sch, err := schema.Parse([]byte(`{"fields":[{"name":"a","type":"integer"},{"name":"b"}]}`))
	if err != nil {
		panic(err)
	}
	return normalize.Result{RowCount: 5, RejectedCount: 2, IssueCount: 3, IssuesTruncated: true,
		Mapping: []match.Entry{{SourceFile: "file_1", SourceColumn: "A", Field: "a", Method: "exact", Confidence: 1},
			{SourceColumn: "Notes <x>", Field: ""}, {SourceColumn: "B", Field: "b", Method: "fuzzy", Confidence: 0.82,
				Evidence: &match.Evidence{Header: 0.9, Values: 0.75, Matched: "integer"}}},
		InferredSchema: sch,
		Profile: []normalize.ColumnProfile{{Column: "A", Field: "a", Type: schema.Integer, Format: schema.Default, Rows: 4, NullCount: 1, DistinctCount: 3, Examples: []string{"1", "2"}},
			{Column: "B", Field: "b", Type: schema.String, Format: schema.Default, Rows: 4, DistinctCount: 10000, DistinctCapped: true}},
		Detected:   []normalize.FileDetection{{SourceFile: "file_1", Detection: table.Detection{Format: "csv", Encoding: "utf-8", EncodingConfidence: "certain", Delimiter: ",", Quote: "\"", HeaderRow: 1}}},
		FileIssues: []normalize.Issue{{SourceFile: "file_1", Column: "B", Field: "b", Severity: "warning", Code: "mixed_currencies", Message: "The amounts of column \"B\" are in several currencies: EUR (3), USD (1)."}},
	}
}

// TestJobRenderer_wireFormat: the job object, its events' data, its
// mapping and its result are written byte for byte as the golden file
// says (the documents stored before rendering moved here, and what the
// dashboard, the SDK and webhook receivers read).
func TestJobRenderer_wireFormat(t *testing.T) {
	t.Parallel()
	r := NewJobRenderer()
	at := time.Date(2026, 11, 22, 10, 0, 0, 5e6, time.UTC)
	var got bytes.Buffer
	must := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, j := range goldenJobs() {
		fmt.Fprintf(&got, "job %s\n%s\n", j.ID, must(r.Job(j)))
		fmt.Fprintf(&got, "event %s\n%s\n", j.ID, must(r.Event(j, at, false)))
		fmt.Fprintf(&got, "eventWithJob %s\n%s\n", j.ID, must(r.Event(j, at, true)))
	}
	res := goldenResult()
	for _, j := range goldenJobs()[:2] {
		fmt.Fprintf(&got, "mapping %s\n%s\nresult %s\n%s\n", j.ID, must(r.Mapping(res.Mapping)), j.ID, must(r.Result(j, res)))
	}
	noInfer := res
	noInfer.InferredSchema = nil
	fmt.Fprintf(&got, "result-noinfer\n%s\n", must(r.Result(goldenJobs()[1], noInfer)))
	fmt.Fprintf(&got, "mapping-empty\n%s\n", must(r.Mapping(nil)))

	want, err := os.ReadFile("testdata/jobs_json.golden")
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w []byte
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if !bytes.Equal(g, w) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}
