package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/review"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// recordJSON is a record of a job as it comes out now.
type recordJSON struct {
	Object     string                `json:"object"`
	Row        int64                 `json:"row"`
	SourceFile *string               `json:"source_file"`
	Valid      bool                  `json:"valid"`
	Values     json.RawMessage       `json:"values"`
	Cells      map[string]*string    `json:"cells"`
	Edited     []string              `json:"edited"`
	Issues     []normalize.IssueJSON `json:"issues"`
}

type recordsJSON struct {
	listJSON[recordJSON]
	Fields []string `json:"fields"`
	Total  int64    `json:"total"`
}

// recordsDefaultLimit is a page's size when the request names none.
const recordsDefaultLimit = 100

// recordQuery reads the query of GET …/records; the use case checks
// what it says.
func recordQuery(c *gin.Context) (review.RecordQuery, error) {
	q := review.RecordQuery{Status: review.RecordStatus(c.Query("status")), Field: c.Query("field"), Code: c.Query("code"), Q: c.Query("q"),
		Sort: c.Query("sort"), Limit: recordsDefaultLimit, Cursor: c.Query("cursor")}
	var errs []domain.FieldError
	switch c.Query("order") {
	case "", "asc":
	case "desc":
		q.Desc = true
	default:
		errs = append(errs, domain.FieldError{Field: "order", Message: "must be asc or desc"})
	}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			n = 0 // refused below, with its range
		}
		q.Limit = n
	}
	if s := c.Query("offset"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			errs = append(errs, domain.FieldError{Field: "offset", Message: "must be a whole number"})
		}
		q.Offset = n
	}
	if len(q.Cursor) > 200 {
		return q, errInvalidCursor
	}
	if len(errs) > 0 {
		return q, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The records query is not valid; see errors.", Fields: errs}
	}
	return q, nil
}

func (a *API) records(c *gin.Context) {
	q, err := recordQuery(c)
	if err != nil { // an unknown job is 404 before its query is 400, as on every route
		if _, gerr := a.deps.JobReader.Get(c.Request.Context(), principal(c), c.Param("id")); gerr != nil {
			err = gerr
		}
		fail(c, err)
		return
	}
	page, err := a.deps.Records.List(c.Request.Context(), principal(c), c.Param("id"), q)
	if err != nil {
		fail(c, err)
		return
	}
	data := make([]recordJSON, len(page.Records))
	for i, r := range page.Records {
		data[i] = recordJSON{Object: "record", Row: r.Row, SourceFile: optionalString(r.SourceFile), Valid: r.Valid, Values: r.Values,
			Cells: r.Cells, Edited: r.Edited, Issues: r.Issues}
		if data[i].Values == nil {
			data[i].Values = json.RawMessage("null")
		}
		if data[i].Cells == nil {
			data[i].Cells = map[string]*string{}
		}
		if data[i].Edited == nil {
			data[i].Edited = []string{}
		}
		if data[i].Issues == nil {
			data[i].Issues = []normalize.IssueJSON{}
		}
	}
	c.JSON(http.StatusOK, recordsJSON{listJSON: newList(data, page.Next), Fields: page.Fields, Total: page.Total})
}
