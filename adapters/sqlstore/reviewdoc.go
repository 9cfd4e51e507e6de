package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize/match"
	"github.com/tabnorm/tabnorm/domain/normalize/review"
)

// The jobs' review column holds a job's review as JSON in the shape of
// the API's review document (API.md, "Review"), which is how it was
// stored when the engine wrote that document itself: reviews stored then
// read as reviews stored now. A review stored before sheets were listed
// has none.

type reviewDoc struct {
	Sample         reviewSummaryDoc  `json:"sample"`
	Columns        []reviewColumnDoc `json:"columns"`
	UnmappedFields []string          `json:"unmapped_fields"`
	Blocking       []reviewBlocker   `json:"blocking"`
	IssueCounts    []reviewCount     `json:"issue_counts"`
	Preview        []reviewRowDoc    `json:"preview"`
	Sheets         []reviewSheet     `json:"sheets"`
	HeaderRow      int               `json:"header_row,omitempty"`
	FirstRows      [][]string        `json:"first_rows,omitempty"`
	HeaderUnsure   bool              `json:"header_unsure,omitempty"`
}

type reviewSheet struct {
	SourceFile *string  `json:"source_file"`
	Name       string   `json:"name"`
	Rows       int      `json:"rows"`
	Complete   bool     `json:"complete"`
	FirstRow   []string `json:"first_row"`
	Selected   bool     `json:"selected"`
}

type reviewSummaryDoc struct {
	Records      int64 `json:"records"`
	RowsValid    int64 `json:"rows_valid"`
	RowsRejected int64 `json:"rows_rejected"`
	Complete     bool  `json:"complete"`
}

type reviewColumnDoc struct {
	SourceFile   *string              `json:"source_file"`
	SourceColumn string               `json:"source_column"`
	Field        *string              `json:"field"`
	Method       *string              `json:"method"`
	Confidence   *float64             `json:"confidence"`
	Evidence     *evidenceDoc         `json:"evidence"`
	Ignored      bool                 `json:"ignored"`
	Alternatives []reviewCandidateDoc `json:"alternatives"`
	Values       []string             `json:"values"`
	Warnings     []reviewWarningDoc   `json:"warnings,omitempty"`
}

type reviewWarningDoc struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type reviewCandidateDoc struct {
	Field      string       `json:"field"`
	Method     string       `json:"method"`
	Confidence float64      `json:"confidence"`
	Evidence   *evidenceDoc `json:"evidence"`
}

type evidenceDoc struct {
	Header  float64 `json:"header"`
	Values  float64 `json:"values"`
	Matched string  `json:"matched"`
}

type reviewBlocker struct {
	Code       domain.Code `json:"code"`
	Field      *string     `json:"field"`
	SourceFile *string     `json:"source_file"`
	Message    string      `json:"message"`
}

type reviewCount struct {
	Field    *string `json:"field"`
	Severity string  `json:"severity"`
	Code     string  `json:"code"`
	Count    int64   `json:"count"`
}

type reviewRowDoc struct {
	Row        int64           `json:"row"`
	SourceFile *string         `json:"source_file"`
	Valid      bool            `json:"valid"`
	Values     json.RawMessage `json:"values"`
	Issues     []reviewIssue   `json:"issues"`
}

type reviewIssue struct {
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

// encodeReview is the review column of a job's review; nil (NULL) for a
// job that was never reviewed.
func encodeReview(r *review.Review) (*string, error) {
	if r == nil {
		return nil, nil
	}
	doc := reviewDoc{Sample: reviewSummaryDoc(r.Sample), UnmappedFields: r.UnmappedFields,
		Columns: convert(r.Columns, func(c review.Column) reviewColumnDoc {
			return reviewColumnDoc{SourceFile: c.SourceFile, SourceColumn: c.SourceColumn, Field: c.Field, Method: c.Method, Confidence: c.Confidence,
				Evidence: (*evidenceDoc)(c.Evidence), Ignored: c.Ignored, Values: c.Values,
				Warnings: convert(c.Warnings, func(w review.Warning) reviewWarningDoc { return reviewWarningDoc(w) }),
				Alternatives: convert(c.Alternatives, func(a match.Candidate) reviewCandidateDoc {
					return reviewCandidateDoc{Field: a.Field, Method: a.Method, Confidence: a.Confidence, Evidence: (*evidenceDoc)(a.Evidence)}
				})}
		}),
		Blocking:    convert(r.Blocking, func(b review.Blocker) reviewBlocker { return reviewBlocker(b) }),
		IssueCounts: convert(r.IssueCounts, func(c review.IssueCount) reviewCount { return reviewCount(c) }),
		Preview: convert(r.Preview, func(p review.PreviewRow) reviewRowDoc {
			return reviewRowDoc{Row: p.Row, SourceFile: p.SourceFile, Valid: p.Valid, Values: p.Values,
				Issues: convert(p.Issues, func(is review.Issue) reviewIssue { return reviewIssue(is) })}
		}),
		Sheets:    convert(r.Sheets, func(s review.Sheet) reviewSheet { return reviewSheet(s) }),
		HeaderRow: r.HeaderRow, FirstRows: r.FirstRows, HeaderUnsure: r.HeaderUnsure,
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the review: %w", err)
	}
	s := string(b)
	return &s, nil
}

// decodeReview reads a review column.
func decodeReview(s *string) (*review.Review, error) {
	if s == nil {
		return nil, nil
	}
	var doc reviewDoc
	if err := json.Unmarshal([]byte(*s), &doc); err != nil {
		return nil, fmt.Errorf("read its review column: %w", err)
	}
	r := &review.Review{Sample: review.Summary(doc.Sample), UnmappedFields: doc.UnmappedFields,
		Columns: convert(doc.Columns, func(c reviewColumnDoc) review.Column {
			return review.Column{SourceFile: c.SourceFile, SourceColumn: c.SourceColumn, Field: c.Field, Method: c.Method, Confidence: c.Confidence,
				Evidence: (*match.Evidence)(c.Evidence), Ignored: c.Ignored, Values: c.Values,
				Warnings: convert(c.Warnings, func(w reviewWarningDoc) review.Warning { return review.Warning(w) }),
				Alternatives: convert(c.Alternatives, func(a reviewCandidateDoc) match.Candidate {
					return match.Candidate{Field: a.Field, Method: a.Method, Confidence: a.Confidence, Evidence: (*match.Evidence)(a.Evidence)}
				})}
		}),
		Blocking:    convert(doc.Blocking, func(b reviewBlocker) review.Blocker { return review.Blocker(b) }),
		IssueCounts: convert(doc.IssueCounts, func(c reviewCount) review.IssueCount { return review.IssueCount(c) }),
		Preview: convert(doc.Preview, func(p reviewRowDoc) review.PreviewRow {
			return review.PreviewRow{Row: p.Row, SourceFile: p.SourceFile, Valid: p.Valid, Values: p.Values,
				Issues: convert(p.Issues, func(is reviewIssue) review.Issue { return review.Issue(is) })}
		}),
		Sheets:    convert(doc.Sheets, func(s reviewSheet) review.Sheet { return review.Sheet(s) }),
		HeaderRow: doc.HeaderRow, FirstRows: doc.FirstRows, HeaderUnsure: doc.HeaderUnsure,
	}
	if r.FirstRows == nil { // a review stored before first rows were kept
		r.FirstRows = [][]string{}
	}
	if r.Sheets == nil { // a review stored before sheets were listed
		r.Sheets = []review.Sheet{}
	}
	return r, nil
}
