package httpapi

import (
	"bufio"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/lists"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/schema"
)

type refListJSON struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Name      string `json:"name"`
	Count     int64  `json:"count"`
	CreatedAt string `json:"created_at"`
}

func newRefListJSON(l schema.List) refListJSON {
	return refListJSON{ID: l.ID, Object: "list", Name: l.Name, Count: l.Count, CreatedAt: formatTime(l.CreatedAt)}
}

type createListRequest struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// createList takes a JSON body ({"name","values"}) or a multipart body
// with a name part, then a file part of one value a line.
func (a *API) createList(c *gin.Context) {
	p := principal(c)
	if mt, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type")); mt == "multipart/form-data" {
		var l schema.List
		name, named := "", false
		err := a.readUpload(c, func(_ string, r io.Reader) error {
			if !named {
				return domain.Invalid("Send the name part before the file part.")
			}
			var err error
			l, err = a.deps.Lists.Create(c.Request.Context(), p, name, lineValues(r))
			return err
		}, func(field string, value []byte) error {
			if field == "name" {
				name, named = string(value), true
			}
			return nil
		})
		if err != nil {
			fail(c, err)
			return
		}
		c.Header("Location", "/v1/lists/"+l.ID)
		c.JSON(http.StatusCreated, newRefListJSON(l))
		return
	}
	var req createListRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	i := 0
	next := func() (string, error) {
		if i == len(req.Values) {
			return "", io.EOF
		}
		i++
		return req.Values[i-1], nil
	}
	l, err := a.deps.Lists.Create(c.Request.Context(), p, req.Name, next)
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Location", "/v1/lists/"+l.ID)
	c.JSON(http.StatusCreated, newRefListJSON(l))
}

// lineValues reads one value a line.
func lineValues(r io.Reader) lists.Values {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), lists.MaxValueBytes+2)
	return func() (string, error) {
		if sc.Scan() {
			return sc.Text(), nil
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return "", domain.Invalid("A line of the file is longer than %d bytes.", lists.MaxValueBytes)
			}
			return "", err
		}
		return "", io.EOF
	}
}

func (a *API) getList(c *gin.Context) {
	l, err := a.deps.Lists.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newRefListJSON(l))
}

func (a *API) listLists(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	all, next, err := a.deps.Lists.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]refListJSON, len(all))
	for i, l := range all {
		out[i] = newRefListJSON(l)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) deleteList(c *gin.Context) {
	if err := a.deps.Lists.Delete(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
