package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/review"
	"github.com/tabnorm/tabnorm/domain"
)

// recordsJSON is a page of a job's records as they come out now.
type recordsJSON struct {
	listJSON[rowCheckJSON]
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
	data := rowChecksJSON("record", page.Records)
	c.JSON(http.StatusOK, recordsJSON{listJSON: newList(data, page.Next), Fields: page.Fields, Total: page.Total})
}
