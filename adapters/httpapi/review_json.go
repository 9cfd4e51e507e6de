package httpapi

import (
	"encoding/json"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
)

// The review document of the review object (API.md, "Review"): the
// columns, blocking problems, counts, preview and sheets of the review the
// engine made (domain/normalize/review), written here.

type reviewDocJSON struct {
	Sample         reviewSummaryJSON   `json:"sample"`
	Columns        []reviewColumnJSON  `json:"columns"`
	UnmappedFields []string            `json:"unmapped_fields"`
	Blocking       []reviewBlockerJSON `json:"blocking"`
	IssueCounts    []reviewCountJSON   `json:"issue_counts"`
	Preview        []reviewRowJSON     `json:"preview"`
	Sheets         []reviewSheetJSON   `json:"sheets"`
	HeaderRow      int                 `json:"header_row"`
	FirstRows      [][]string          `json:"first_rows"`
	HeaderUnsure   bool                `json:"header_unsure"`
}

type reviewSheetJSON struct {
	SourceFile *string  `json:"source_file"`
	Name       string   `json:"name"`
	Rows       int      `json:"rows"`
	Complete   bool     `json:"complete"`
	FirstRow   []string `json:"first_row"`
	Selected   bool     `json:"selected"`
}

type reviewSummaryJSON struct {
	Records      int64 `json:"records"`
	RowsValid    int64 `json:"rows_valid"`
	RowsRejected int64 `json:"rows_rejected"`
	Complete     bool  `json:"complete"`
}

type reviewColumnJSON struct {
	SourceFile   *string               `json:"source_file"`
	SourceColumn string                `json:"source_column"`
	Field        *string               `json:"field"`
	Method       *string               `json:"method"`
	Confidence   *float64              `json:"confidence"`
	Evidence     *evidenceJSON         `json:"evidence"`
	Ignored      bool                  `json:"ignored"`
	Alternatives []reviewCandidateJSON `json:"alternatives"`
	Values       []string              `json:"values"`
	Warnings     []reviewWarningJSON   `json:"warnings"`
}

type reviewWarningJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type reviewCandidateJSON struct {
	Field      string        `json:"field"`
	Method     string        `json:"method"`
	Confidence float64       `json:"confidence"`
	Evidence   *evidenceJSON `json:"evidence"`
}

type evidenceJSON struct {
	Header  float64 `json:"header"`
	Values  float64 `json:"values"`
	Matched string  `json:"matched"`
}

type reviewBlockerJSON struct {
	Code       domain.Code `json:"code"`
	Field      *string     `json:"field"`
	SourceFile *string     `json:"source_file"`
	Message    string      `json:"message"`
}

type reviewCountJSON struct {
	Field    *string `json:"field"`
	Severity string  `json:"severity"`
	Code     string  `json:"code"`
	Count    int64   `json:"count"`
}

type reviewRowJSON struct {
	Row        int64             `json:"row"`
	SourceFile *string           `json:"source_file"`
	Valid      bool              `json:"valid"`
	Values     json.RawMessage   `json:"values"`
	Issues     []reviewIssueJSON `json:"issues"`
}

type reviewIssueJSON struct {
	Row        *int64  `json:"row"`
	SourceFile *string `json:"source_file"`
	Column     *string `json:"column"`
	Field      *string `json:"field"`
	Severity   string  `json:"severity"`
	Code       string  `json:"code"`
	Message    string  `json:"message"`
	Value      *string `json:"value"`
	Rule       *string `json:"rule,omitempty"`
}

// convert maps a slice, keeping nil as nil (null) and empty as empty
// ([]), as the document was written.
func convert[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// newReviewDocJSON is the review's document.
func newReviewDocJSON(r review.Review) reviewDocJSON {
	return reviewDocJSON{Sample: reviewSummaryJSON(r.Sample), UnmappedFields: r.UnmappedFields,
		Columns: convert(r.Columns, func(c review.Column) reviewColumnJSON {
			return reviewColumnJSON{SourceFile: c.SourceFile, SourceColumn: c.SourceColumn, Field: c.Field, Method: c.Method, Confidence: c.Confidence,
				Evidence: (*evidenceJSON)(c.Evidence), Ignored: c.Ignored, Values: c.Values,
				Warnings: warningsJSON(c.Warnings),
				Alternatives: convert(c.Alternatives, func(a match.Candidate) reviewCandidateJSON {
					return reviewCandidateJSON{Field: a.Field, Method: a.Method, Confidence: a.Confidence, Evidence: (*evidenceJSON)(a.Evidence)}
				})}
		}),
		Blocking:    convert(r.Blocking, func(b review.Blocker) reviewBlockerJSON { return reviewBlockerJSON(b) }),
		IssueCounts: convert(r.IssueCounts, func(c review.IssueCount) reviewCountJSON { return reviewCountJSON(c) }),
		Preview: convert(r.Preview, func(p review.PreviewRow) reviewRowJSON {
			return reviewRowJSON{Row: p.Row, SourceFile: p.SourceFile, Valid: p.Valid, Values: p.Values,
				Issues: convert(p.Issues, func(is review.Issue) reviewIssueJSON { return reviewIssueJSON(is) })}
		}),
		Sheets:    convert(r.Sheets, func(s review.Sheet) reviewSheetJSON { return reviewSheetJSON(s) }),
		HeaderRow: r.HeaderRow, FirstRows: firstRows(r.FirstRows), HeaderUnsure: r.HeaderUnsure,
	}
}

func firstRows(rows [][]string) [][]string {
	if rows == nil {
		return [][]string{}
	}
	return rows
}

// warningsJSON are a column's warnings; [] for a review stored before
// columns had them.
func warningsJSON(ws []review.Warning) []reviewWarningJSON {
	out := make([]reviewWarningJSON, len(ws))
	for i, w := range ws {
		out[i] = reviewWarningJSON(w)
	}
	return out
}
