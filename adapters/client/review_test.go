package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/client"
)

// awaitReview follows a job until it stops for its review and returns the
// job as the event carried it.
func awaitReview(t *testing.T, c *client.Client, jobID string) *client.Job {
	t.Helper()
	for ev, err := range c.Follow(context.Background(), jobID) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Terminal() {
			t.Fatalf("job %s ended (%s) before its review", jobID, ev.Kind)
		}
		if ev.Kind == "job.awaiting_review" {
			if ev.Job == nil {
				t.Fatalf("job.awaiting_review without the job: %s", ev.Data)
			}
			return ev.Job
		}
	}
	t.Fatalf("job %s: the events ended without its review", jobID)
	return nil
}

// columns says a review's columns as "Header→field/method" ("Header→-"
// unmapped, "Header→ignored").
func columns(r *client.Review) string {
	var out []string
	for _, c := range r.Columns {
		switch {
		case c.Ignored:
			out = append(out, c.SourceColumn+"→ignored")
		case c.Field == nil:
			out = append(out, c.SourceColumn+"→-")
		default:
			out = append(out, c.SourceColumn+"→"+*c.Field+"/"+*c.Method)
		}
	}
	return strings.Join(out, " ")
}

func ptr(s string) *string { return &s }

// TestReview_mapConfirmSucceeds: a job created with review stops awaiting
// it; its review is read and blocks a confirmation until the mapping is
// changed; the confirmation (with an Idempotency-Key) queues the job, which
// runs with the reviewed mapping to its end.
func TestReview_mapConfirmSucceeds(t *testing.T) {
	ctx := context.Background()
	key := newOrgKey(t)
	f := newFront(t, nil)
	c := client.New(f.URL, key)
	csv := "Pos,Contact,Notes\n1,ann@x.io,a\n2,bob@,b\n9007199254740993,cy@x.io,c\n"
	j, err := c.CreateJob(ctx, client.Upload{Filename: "p.csv", Body: strings.NewReader(csv)}, client.JobParams{Schema: []byte(people), Options: []byte(`{"review":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	waiting := awaitReview(t, c, j.ID)
	if waiting.ID != j.ID || waiting.Status != "awaiting_review" || len(waiting.Mapping) != 3 || waiting.Mapping[0].SourceColumn != "Pos" {
		t.Fatalf("job awaiting review %+v", waiting)
	}

	reviewProposal(t, c, j.ID)
	reviewChange(t, c, j.ID)
	confirmAndRun(t, c, f, j.ID)
}

// reviewProposal: the review as proposed blocks a confirmation, and a
// change naming a column the file lacks is refused.
func reviewProposal(t *testing.T, c *client.Client, jobID string) {
	t.Helper()
	ctx := context.Background()
	r, err := c.Review(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	if r.JobID != jobID || r.Status != "pending" || r.JobStatus != "awaiting_review" || r.ExpiresAt == nil || r.ConfirmedAt != nil ||
		len(r.Columns) != 3 || !slices.Equal(r.Columns[0].Values, []string{"1", "2", "9007199254740993"}) ||
		len(r.Columns[0].Alternatives) == 0 || r.Columns[0].Alternatives[0].Field != "id" {
		t.Fatalf("review %s", r.Raw)
	}
	// Contact names a person, but its values are e-mail addresses: the
	// e-mail field is offered, with the evidence, not mapped.
	if a := r.Columns[1].Alternatives; len(a) == 0 || a[0].Field != "email" || a[0].Method != "content" || a[0].Evidence == nil ||
		a[0].Evidence.Matched != "email" || a[0].Evidence.Values != 1 || a[0].Evidence.Header != 0 {
		t.Fatalf("Contact's alternatives %+v", r.Columns[1].Alternatives)
	}
	if len(r.Blocking) == 0 || r.Blocking[0].Code != "no_columns_mapped" || !slices.Equal(r.UnmappedFields, []string{"id", "email"}) {
		t.Fatalf("blocking %+v, unmapped %v (columns %s)", r.Blocking, r.UnmappedFields, columns(r))
	}
	if !strings.Contains(string(r.Raw), `"object":"job_review"`) {
		t.Fatalf("raw review %s", r.Raw)
	}
	if _, err := c.Confirm(ctx, jobID); !client.IsCode(err, "no_columns_mapped") {
		t.Fatalf("confirming a blocked review: %v", err)
	}
	if _, err := c.PatchMapping(ctx, jobID, map[string]*string{"Nope": ptr("id")}); !client.IsCode(err, "invalid_mapping") {
		t.Fatalf("mapping a column the file lacks: %v", err)
	}
}

// reviewChange: a change maps and ignores columns and answers the review
// computed again, its preview rows with every digit of their numbers.
func reviewChange(t *testing.T, c *client.Client, jobID string) {
	t.Helper()
	r, err := c.PatchMapping(context.Background(), jobID, map[string]*string{"Pos": ptr("id"), "Contact": ptr("email"), "Notes": nil})
	if err != nil {
		t.Fatal(err)
	}
	if got := columns(r); got != "Pos→id/explicit Contact→email/explicit Notes→ignored" || len(r.Blocking) != 0 || len(r.UnmappedFields) != 0 {
		t.Fatalf("after the change: %s %+v", got, r)
	}
	if r.Sample.Records != 3 || !r.Sample.Complete || r.Sample.RowsValid != 2 || r.Sample.RowsRejected != 1 || len(r.IssueCounts) != 1 || *r.IssueCounts[0].Field != "email" || r.IssueCounts[0].Code != "invalid_email" || r.IssueCounts[0].Count != 1 {
		t.Fatalf("sample %+v, counts %+v", r.Sample, r.IssueCounts)
	}
	if len(r.Preview) != 3 {
		t.Fatalf("preview %+v", r.Preview)
	}
	if p := r.Preview[1]; p.Row != 2 || p.Valid || p.Values["email"] != nil || p.Values["id"] != json.Number("2") || len(p.Issues) != 1 || *p.Issues[0].Value != "bob@" {
		t.Fatalf("preview of the rejected row %+v", p)
	}
	if id := r.Preview[2].Values["id"]; id != json.Number("9007199254740993") {
		t.Fatalf("a big integer of the preview is %#v", id)
	}

}

// confirmAndRun: the confirmation, with an Idempotency-Key, queues the job
// with the reviewed mapping, once; the job runs to its end.
func confirmAndRun(t *testing.T, c *client.Client, f *front, jobID string) {
	t.Helper()
	ctx := context.Background()
	confirmed, err := c.Confirm(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	if confirmed.ID != jobID || confirmed.Status != "queued" {
		t.Fatalf("confirmed %+v", confirmed)
	}
	var opts struct{ Mapping map[string]*string }
	if err := json.Unmarshal(confirmed.Options, &opts); err != nil || len(opts.Mapping) != 3 || *opts.Mapping["Pos"] != "id" || opts.Mapping["Notes"] != nil {
		t.Fatalf("confirmed options %s: %v", confirmed.Options, err)
	}
	if _, err := c.Confirm(ctx, jobID); !client.IsCode(err, "job_not_awaiting_review") {
		t.Fatalf("confirming twice: %v", err)
	}
	confirms := 0
	for _, req := range f.requests() {
		if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/confirm") {
			confirms++
			if !strings.HasPrefix(req.Header.Get("Idempotency-Key"), "tn_") {
				t.Fatalf("confirmation without an Idempotency-Key: %v", req.Header)
			}
		}
		if req.Method == http.MethodPatch && req.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("mapping change sent as %q", req.Header.Get("Content-Type"))
		}
	}
	if confirms != 3 {
		t.Fatalf("%d confirmations sent, want 3", confirms)
	}

	done, err := c.Wait(ctx, jobID)
	if err != nil || done.Status != "succeeded" || done.Result.RowCount != 2 || done.Result.RejectedCount != 1 {
		t.Fatalf("the confirmed job %+v: %v", done, err)
	}
	var ids []string
	for row, err := range c.Rows(ctx, jobID) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, fmt.Sprint(row["id"]))
	}
	if !slices.Equal(ids, []string{"1", "9007199254740993"}) {
		t.Fatalf("rows %v", ids)
	}
	if r, err := c.Review(ctx, jobID); err != nil || r.Status != "confirmed" || r.ConfirmedAt == nil || r.ExpiresAt != nil || r.JobStatus != "succeeded" {
		t.Fatalf("review after the run %+v: %v", r, err)
	}
}

// TestReview_neverReviewedIsNotFound: a job created without review has
// no review, and no mapping to change.
func TestReview_neverReviewedIsNotFound(t *testing.T) {
	ctx := context.Background()
	c := client.New(serverURL, newOrgKey(t))
	j := finishedJob(t, c, peopleCSV(1))
	if _, err := c.Review(ctx, j.ID); !client.IsCode(err, "not_found") {
		t.Fatalf("review of a job never reviewed: %v", err)
	}
	if _, err := c.PatchMapping(ctx, j.ID, map[string]*string{"id": nil}); !client.IsCode(err, "job_not_awaiting_review") {
		t.Fatalf("mapping change of an ended job: %v", err)
	}
}

const members = `{"fields":[{"name":"name","type":"string"},{"name":"active","type":"boolean"}]}`

// TestInvalidValues_pagesAndRerunFixes: a field's rejected values come a
// page at a time by cursor, most frequent first, each once; a rerun with a
// value_map for one of them and a mapping change runs on the same file
// and keeps the rows it fixes.
func TestInvalidValues_pagesAndRerunFixes(t *testing.T) {
	ctx := context.Background()
	key := newOrgKey(t)
	c := client.New(serverURL, key)
	var b strings.Builder
	b.WriteString("Name,Aktiv\n")
	for range 3 {
		b.WriteString("Ann,ja\n")
	}
	for i := range 450 {
		fmt.Fprintf(&b, "P%d,v%03d\n", i, i)
	}
	j, err := c.CreateJob(ctx, client.Upload{Filename: "m.csv", Body: strings.NewReader(b.String())},
		client.JobParams{Schema: []byte(members), Options: []byte(`{"mapping":{"Aktiv":"active"}}`), Name: "members"})
	if err != nil {
		t.Fatal(err)
	}
	if j, err = c.Wait(ctx, j.ID); err != nil || j.Status != "succeeded" || j.Result.RejectedCount != 453 {
		t.Fatalf("first job %+v: %v", j, err)
	}

	invalidValuePages(t, key, j.ID)
	rerunFixes(t, c, j.ID)
}

// invalidValuePages: 451 values come in three pages by cursor, most
// frequent first, each once.
func invalidValuePages(t *testing.T, key, jobID string) {
	t.Helper()
	ctx := context.Background()
	f := newFront(t, nil)
	c := client.New(f.URL, key)
	var got []string
	for v, err := range c.InvalidValues(ctx, jobID, "active") {
		if err != nil {
			t.Fatal(err)
		}
		if v.Code != "invalid_boolean" || !strings.Contains(string(v.Raw), `"object":"invalid_value"`) {
			t.Fatalf("value %+v %s", v, v.Raw)
		}
		got = append(got, fmt.Sprintf("%s=%d", v.Value, v.Count))
	}
	if len(got) != 451 || got[0] != "ja=3" || got[1] != "v000=1" || got[450] != "v449=1" {
		t.Fatalf("%d values: %v … %v", len(got), got[:min(3, len(got))], got[max(0, len(got)-3):])
	}
	seen := map[string]bool{}
	for _, v := range got {
		if seen[v] {
			t.Fatalf("%s listed twice", v)
		}
		seen[v] = true
	}
	reqs := f.requests()
	if len(reqs) != 3 || reqs[0].URL.Query().Get("cursor") != "" || reqs[1].URL.Query().Get("cursor") == "" ||
		reqs[2].URL.Query().Get("cursor") == reqs[1].URL.Query().Get("cursor") || reqs[2].URL.Query().Get("field") != "active" {
		t.Fatalf("pages fetched: %v", queries(reqs))
	}
	var colourErr error
	for _, err := range c.InvalidValues(ctx, jobID, "colour") {
		colourErr = err
	}
	if !client.IsCode(colourErr, "invalid_request") {
		t.Fatalf("a field the schema lacks: %v", colourErr)
	}

}

// rerunFixes: a rerun with a value_map and a mapping change keeps the rows
// the map fixes, on the same file.
func rerunFixes(t *testing.T, c *client.Client, jobID string) {
	t.Helper()
	ctx := context.Background()
	rerun, err := c.Rerun(ctx, jobID, client.RerunRequest{
		Options: []byte(`{"value_map":{"active":{"ja":"true"}}}`),
		Mapping: map[string]*string{"Name": nil},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rerun.ID == jobID || rerun.Source.RerunOf == nil || *rerun.Source.RerunOf != jobID || rerun.Name == nil || *rerun.Name != "members" {
		t.Fatalf("rerun %s", rerun.Raw)
	}
	var opts struct{ Mapping map[string]*string }
	if err := json.Unmarshal(rerun.Options, &opts); err != nil || opts.Mapping["Name"] != nil || opts.Mapping["Aktiv"] == nil || *opts.Mapping["Aktiv"] != "active" {
		t.Fatalf("rerun options %s: %v", rerun.Options, err)
	}
	done, err := c.Wait(ctx, rerun.ID)
	if err != nil || done.Status != "succeeded" || done.Result.RowCount != 3 || done.Result.RejectedCount != 450 {
		t.Fatalf("rerun %+v: %v", done, err)
	}
	for row, err := range c.Rows(ctx, rerun.ID) {
		if err != nil {
			t.Fatal(err)
		}
		if row["active"] != true || row["name"] != nil {
			t.Fatalf("fixed row %v", row)
		}
	}
	if _, err := c.Rerun(ctx, "job_nope", client.RerunRequest{}); !client.IsCode(err, "not_found") {
		t.Fatalf("rerun of no job: %v", err)
	}
}
