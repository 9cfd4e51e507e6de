package sqlstore

import (
	"testing"
)

// storedReview is a review column as the engine wrote the review's
// document before the review was a typed value: every part, nulls and
// empty lists as they come.
const storedReview = `{"sample":{"records":4,"rows_valid":3,"rows_rejected":1,"complete":true},` +
	`"columns":[{"source_file":"file_1","source_column":"Courriel","field":"email","method":"synonym","confidence":0.91,"evidence":{"header":0.9,"values":1,"matched":"email"},"ignored":false,` +
	`"alternatives":[{"field":"notes","method":"fuzzy","confidence":0.4,"evidence":{"header":0,"values":0.5,"matched":"text"}}],"values":["ann@example.com","bob@"]},` +
	`{"source_file":null,"source_column":"Notes \u003cx\u003e","field":null,"method":null,"confidence":null,"evidence":null,"ignored":true,"alternatives":[],"values":[]}],` +
	`"unmapped_fields":["phone"],` +
	`"blocking":[{"code":"required_field_unmapped","field":"email","source_file":"file_1","message":"Required field \"email\" matches no column."}],` +
	`"issue_counts":[{"field":"email","severity":"error","code":"invalid_email","count":1},{"field":null,"severity":"warning","code":"fuzzy_mapping","count":2}],` +
	`"preview":[{"row":3,"source_file":"file_1","valid":false,"values":{"email":null,"n":12.50},` +
	`"issues":[{"row":3,"source_file":"file_1","column":"Courriel","field":"email","severity":"error","code":"invalid_email","message":"\"bob@\" is not an email address.","value":"bob@"},` +
	`{"row":3,"source_file":null,"column":null,"field":null,"severity":"warning","code":"rule_violation","message":"m","value":null,"rule":"r1"}]},` +
	`{"row":4,"source_file":null,"valid":true,"values":null,"issues":[]}],` +
	`"sheets":[{"source_file":"file_1","name":"Staff","rows":5,"complete":false,"first_row":["Courriel"],"selected":true},{"source_file":null,"name":"Empty","rows":0,"complete":true,"first_row":[],"selected":false}]}`

// TestReviewColumn_readsWhatIsStored: a review stored as the engine's
// document reads as a typed review and is written back byte for byte, so
// the reviews of jobs awaiting one when the review became typed keep
// their document (and the API answers them as before).
func TestReviewColumn_readsWhatIsStored(t *testing.T) {
	t.Parallel()
	in := storedReview
	rev, err := decodeReview(&in)
	if err != nil {
		t.Fatal(err)
	}
	if len(rev.Columns) != 2 || *rev.Columns[0].Field != "email" || rev.Columns[0].Evidence.Header != 0.9 || rev.Columns[0].Alternatives[0].Evidence.Values != 0.5 ||
		len(rev.Preview) != 2 || *rev.Preview[0].Issues[1].Rule != "r1" || rev.Sheets[0].Name != "Staff" || rev.Blocking[0].Code != "required_field_unmapped" {
		t.Fatalf("decoded %+v", rev)
	}
	out, err := encodeReview(rev)
	if err != nil || *out != storedReview {
		t.Fatalf("written back:\n%s\nwant\n%s (%v)", *out, storedReview, err)
	}
	if out, err := encodeReview(nil); out != nil || err != nil {
		t.Fatalf("no review is %v, %v; want NULL", out, err)
	}
	if rev, err := decodeReview(nil); rev != nil || err != nil {
		t.Fatalf("NULL is %+v, %v; want no review", rev, err)
	}
}

// TestReviewColumn_beforeSheets: a review stored before sheets were
// listed has none (an empty list, as the API has always shown it); a
// column that does not parse is an error, not an empty review.
func TestReviewColumn_beforeSheets(t *testing.T) {
	t.Parallel()
	old := `{"columns":[]}`
	rev, err := decodeReview(&old)
	if err != nil || rev.Sheets == nil || len(rev.Sheets) != 0 {
		t.Fatalf("a review stored before sheets: %#v %v", rev, err)
	}
	broken := `{"columns":`
	if _, err := decodeReview(&broken); err == nil {
		t.Fatal("a review column that does not parse was read without an error")
	}
}
