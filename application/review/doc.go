// Package review is the person between a file and its result: the review
// of a job's column mapping before the job runs (options.review), and the
// fixing of values a finished job rejected.
//
// Each use case is a type of its own that takes only the ports it uses:
//
//   - Reviewer (review.go, sheet.go) reads a job's review and changes its
//     mapping and its workbook's sheet.
//   - Confirmer (confirm.go) confirms a review: the job is queued again
//     with the mapping confirmed, and a saved schema learns it.
//   - Expirer (expire.go) cancels the jobs whose review nobody confirmed
//     within the TTL; the workers call it.
//   - Editor (edits.go, fix.go) edits a finished job's cells, and shows
//     its rejected rows and a field's invalid values.
//   - Rerunner (fix.go) runs a finished job again on its files with other
//     options, mapping or edits.
//
// Every one that reads a job for a principal enforces the rule of an
// import session's client secret (importsession.CanPrincipalUseJob) on
// that read.
package review
