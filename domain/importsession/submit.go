package importsession

import (
	"fmt"

	"github.com/tabnorm/tabnorm/domain"
)

// SubmitPolicy is what a session's submit asks of its final jobs: with
// InvalidRows block, no rejected row (the end user fixes or removes them
// first); with MinValidRows, at least so many valid rows. The default,
// drop, submits what is valid and leaves the rejected rows out.
type SubmitPolicy struct {
	InvalidRows  string // DropInvalid ("" too) or BlockInvalid
	MinValidRows int64
}

// The policies for invalid rows.
const (
	DropInvalid  = "drop"
	BlockInvalid = "block"
)

// MaxMinValidRows bounds min_valid_rows (a job reads at most 10 million
// rows by default; more is a mistake).
const MaxMinValidRows = 1_000_000_000

// Check finds the problems of a policy a request gives; path names it.
func (p SubmitPolicy) Check(path string) []domain.FieldError {
	var errs []domain.FieldError
	switch p.InvalidRows {
	case "", DropInvalid, BlockInvalid:
	default:
		errs = append(errs, domain.FieldError{Field: path + ".invalid_rows", Message: "must be drop or block"})
	}
	if p.MinValidRows < 0 || p.MinValidRows > MaxMinValidRows {
		errs = append(errs, domain.FieldError{Field: path + ".min_valid_rows", Message: fmt.Sprintf("must be 0 to %d", MaxMinValidRows)})
	}
	return errs
}

// Allows says whether a submit of final jobs with so many valid and
// rejected rows may go on: 409 rows_still_invalid under block while a row
// is rejected, 409 too_few_valid_rows under min_valid_rows.
func (p SubmitPolicy) Allows(valid, rejected int64) error {
	if p.InvalidRows == BlockInvalid && rejected > 0 {
		return domain.Errorf(domain.ErrConflict, domain.CodeRowsStillInvalid,
			"%d rows are still rejected; this import takes no invalid row: fix them, or remove them, and submit again.", rejected)
	}
	if valid < p.MinValidRows {
		return domain.Errorf(domain.ErrConflict, domain.CodeTooFewValidRows, "This import needs at least %d valid rows; it has %d.", p.MinValidRows, valid)
	}
	return nil
}
