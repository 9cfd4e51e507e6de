package importsession

import (
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

func TestSubmitPolicy_allowsAndChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p               SubmitPolicy
		valid, rejected int64
		want            domain.Code
	}{
		{SubmitPolicy{}, 0, 5, ""},
		{SubmitPolicy{InvalidRows: DropInvalid}, 3, 5, ""},
		{SubmitPolicy{InvalidRows: BlockInvalid}, 3, 1, domain.CodeRowsStillInvalid},
		{SubmitPolicy{InvalidRows: BlockInvalid}, 3, 0, ""},
		{SubmitPolicy{MinValidRows: 4}, 3, 0, domain.CodeTooFewValidRows},
		{SubmitPolicy{MinValidRows: 3}, 3, 9, ""},
	} {
		if got := domain.CodeOf(tc.p.Allows(tc.valid, tc.rejected)); got != tc.want {
			t.Errorf("%+v.Allows(%d, %d) = %q, want %q", tc.p, tc.valid, tc.rejected, got, tc.want)
		}
	}
	if errs := (SubmitPolicy{InvalidRows: "keep", MinValidRows: -1}).Check("submit_policy"); len(errs) != 2 || errs[0].Field != "submit_policy.invalid_rows" {
		t.Fatalf("Check = %v, want both members named", errs)
	}
}
