package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// editRoutes are the routes of a job's cell edits and its rejected rows,
// under /v1/jobs/{id} and, for connect jobs, /v1/connect/jobs/{id}
// (docs/review.md).
func (a *API) editRoutes(g *gin.RouterGroup) {
	get(g, "/:id/edits", a.listEdits)
	g.POST("/:id/edits", a.addEdits)
	get(g, "/:id/rejected-rows", a.rejectedRows)
	get(g, "/:id/records", a.records) // records_handlers.go
	a.changeRoutes(g)                 // changes_handlers.go
}

// editRequestJSON is one edit as a request gives it: value must be there,
// a string or null (which clears the cell).
type editRequestJSON struct {
	Row        int64           `json:"row"`
	SourceFile *string         `json:"source_file"`
	Field      string          `json:"field"`
	Value      json.RawMessage `json:"value"`
}

type editsRequest struct {
	Edits *[]editRequestJSON `json:"edits"`
}

// toEdits reads a request's edits; path names the list in errors.
func toEdits(path string, in []editRequestJSON) ([]normalize.Edit, error) {
	out := make([]normalize.Edit, len(in))
	var errs []domain.FieldError
	for i, e := range in {
		out[i] = normalize.Edit{Row: e.Row, Field: e.Field}
		if e.SourceFile != nil {
			out[i].SourceFile = *e.SourceFile
		}
		switch v := bytes.TrimSpace(e.Value); {
		case len(v) == 0:
			errs = append(errs, domain.FieldError{Field: fmt.Sprintf("%s[%d].value", path, i), Message: "required: a string, or null to clear the cell"})
		case string(v) == "null":
		default:
			var s string
			if json.Unmarshal(v, &s) != nil {
				errs = append(errs, domain.FieldError{Field: fmt.Sprintf("%s[%d].value", path, i), Message: "must be a string or null"})
				continue
			}
			out[i].Value = &s
		}
	}
	if len(errs) > 0 {
		return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "Some edits are not valid; see errors.", Fields: errs}
	}
	return out, nil
}

// editJSON is a stored edit.
type editJSON struct {
	Object     string  `json:"object"`
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	Field      string  `json:"field"`
	Value      *string `json:"value"`
	UpdatedAt  string  `json:"updated_at"`
}

func newEditJSON(e normalize.Edit) editJSON {
	return editJSON{Object: "job_edit", Row: e.Row, SourceFile: optionalString(e.SourceFile), Field: e.Field, Value: e.Value, UpdatedAt: formatTime(e.At)}
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// editCheckJSON is a stored edit with its row checked again.
type editCheckJSON struct {
	editJSON
	RowValid  bool                  `json:"row_valid"`
	RowIssues []normalize.IssueJSON `json:"row_issues"`
}

type editsAddedJSON struct {
	Object    string          `json:"object"`
	JobID     string          `json:"job_id"`
	EditCount int             `json:"edit_count"`
	Data      []editCheckJSON `json:"data"`
}

func (a *API) addEdits(c *gin.Context) {
	var req editsRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	var in []editRequestJSON
	if req.Edits != nil {
		in = *req.Edits
	}
	edits, err := toEdits("edits", in)
	if err != nil { // an unknown job is 404 before its body is 400, as on every route
		if _, gerr := a.deps.JobReader.Get(c.Request.Context(), principal(c), c.Param("id")); gerr != nil {
			err = gerr
		}
		fail(c, err)
		return
	}
	added, err := a.deps.Edits.AddEdits(c.Request.Context(), principal(c), c.Param("id"), edits)
	if err != nil {
		fail(c, err)
		return
	}
	out := editsAddedJSON{Object: "job_edits", JobID: c.Param("id"), EditCount: added.Total, Data: make([]editCheckJSON, len(added.Edits))}
	for i, e := range added.Edits {
		out.Data[i] = editCheckJSON{editJSON: newEditJSON(e.Edit), RowValid: e.Row.Valid, RowIssues: e.Row.Issues}
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) listEdits(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	edits, next, err := a.deps.Edits.Edits(c.Request.Context(), principal(c), c.Param("id"), page)
	if err != nil {
		fail(c, err)
		return
	}
	data := make([]editJSON, len(edits))
	for i, e := range edits {
		data[i] = newEditJSON(e)
	}
	c.JSON(http.StatusOK, newList(data, next))
}

// rowCheckJSON is a row as it comes out now, checked with the job's edits:
// a rejected row (object "rejected_row") or any record ("record").
type rowCheckJSON struct {
	Object     string                `json:"object"`
	Row        int64                 `json:"row"`
	SourceFile *string               `json:"source_file"`
	Valid      bool                  `json:"valid"`
	Values     json.RawMessage       `json:"values"`
	Cells      map[string]*string    `json:"cells"`
	Edited     []string              `json:"edited"`
	Issues     []normalize.IssueJSON `json:"issues"`
}

// rowChecksJSON writes checked rows as the given object, empty lists as
// [] and a row without values as null.
func rowChecksJSON(object string, rows []normalize.RowCheck) []rowCheckJSON {
	data := make([]rowCheckJSON, len(rows))
	for i, r := range rows {
		data[i] = rowCheckJSON{Object: object, Row: r.Row, SourceFile: optionalString(r.SourceFile), Valid: r.Valid, Values: r.Values,
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
	return data
}

type rejectedRowsJSON struct {
	listJSON[rowCheckJSON]
	Fields        []string `json:"fields"`
	RejectedCount int64    `json:"rejected_count"`
}

func (a *API) rejectedRows(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	rows, err := a.deps.Edits.RejectedRows(c.Request.Context(), principal(c), c.Param("id"), page)
	if err != nil {
		fail(c, err)
		return
	}
	data := rowChecksJSON("rejected_row", rows.Rows)
	c.JSON(http.StatusOK, rejectedRowsJSON{listJSON: newList(data, rows.Next), Fields: rows.Fields, RejectedCount: rows.Total})
}
