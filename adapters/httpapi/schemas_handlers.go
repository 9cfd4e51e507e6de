package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain/schema"
)

type schemaJSON struct {
	ID        string          `json:"id"`
	Object    string          `json:"object"`
	Name      string          `json:"name"`
	Schema    json.RawMessage `json:"schema"`
	CreatedAt string          `json:"created_at"`
	// DestinationIDs are where jobs made with the schema are delivered
	// when their options name no destination.
	DestinationIDs []string `json:"destination_ids"`
}

func newSchemaJSON(s schema.Saved) schemaJSON {
	dst := s.DestinationIDs
	if dst == nil {
		dst = []string{}
	}
	return schemaJSON{ID: s.ID, Object: "schema", Name: s.Name, Schema: s.Document, CreatedAt: formatTime(s.CreatedAt), DestinationIDs: dst}
}

type createSchemaRequest struct {
	Name           string          `json:"name"`
	Schema         json.RawMessage `json:"schema"`
	DestinationIDs []string        `json:"destination_ids"`
}

func (a *API) createSchema(c *gin.Context) {
	var req createSchemaRequest
	if err := decodeJSON(c, &req); err != nil {
		a.failCreating(c, principal(c).OrgID, err)
		return
	}
	p := principal(c)
	hash := requestHash(c, req.Name, compactJSON(req.Schema), strings.Join(req.DestinationIDs, ","))
	a.createOnce(c, hash, answer{status: http.StatusCreated}, func(ctx context.Context) (string, any, error) {
		s, err := a.deps.Schemas.Create(ctx, p, req.Name, req.Schema, req.DestinationIDs)
		if err != nil {
			return "", nil, err
		}
		return "/v1/schemas/" + s.ID, newSchemaJSON(s), nil
	})
}

func (a *API) getSchema(c *gin.Context) {
	s, err := a.deps.Schemas.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newSchemaJSON(s))
}

func (a *API) listSchemas(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Schemas.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]schemaJSON, len(list))
	for i, s := range list {
		out[i] = newSchemaJSON(s)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) deleteSchema(c *gin.Context) {
	if err := a.deps.Schemas.Delete(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
