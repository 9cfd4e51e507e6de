package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/connect"
	"github.com/tabnorm/tabnorm/application/jobs"
	domainconnect "github.com/tabnorm/tabnorm/domain/connect"
)

// fileJSON is the file object of API.md §8.
type fileJSON struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Filename  string `json:"filename"`
	Format    string `json:"format"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
	CreatedAt string `json:"created_at"`
}

func newFileJSON(f domainconnect.File) fileJSON {
	return fileJSON{ID: f.ID, Object: "file", Filename: f.Filename, Format: f.Format, SizeBytes: f.SizeBytes, SHA256: f.SHA256, CreatedAt: formatTime(f.CreatedAt)}
}

// createFile streams a file into the organization's library, exactly as
// job uploads are streamed; the only part is "file". A stored file that
// does not become a library file (a refusal, a replay) is removed again.
func (a *API) createFile(c *gin.Context) {
	ctx, p := c.Request.Context(), principal(c)
	var up *connect.Upload
	err := a.readUpload(c, func(filename string, r io.Reader) error {
		up = a.deps.Connect.NewUpload(p, filename)
		return a.deps.Connect.Store(ctx, up, r)
	}, func(name string, _ []byte) error { return unknownPart(name) })
	if err != nil {
		a.deps.Connect.Discard(ctx, up)
		a.failCreating(c, p.OrgID, err)
		return
	}
	created := a.createOnce(c, requestHash(c, up.SHA256()), answer{status: http.StatusCreated}, func(ctx context.Context) (string, any, error) {
		f, err := a.deps.Connect.CreateFile(ctx, p, up)
		if err != nil {
			return "", nil, err
		}
		return "/v1/connect/files/" + f.ID, newFileJSON(f), nil
	})
	if !created {
		a.deps.Connect.Discard(ctx, up)
	}
}

func (a *API) getFile(c *gin.Context) {
	f, err := a.deps.Connect.GetFile(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newFileJSON(f))
}

func (a *API) listFiles(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Connect.ListFiles(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]fileJSON, len(list))
	for i, f := range list {
		out[i] = newFileJSON(f)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) deleteFile(c *gin.Context) {
	if err := a.deps.Connect.DeleteFile(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// connectJobRequest is the body of POST /v1/connect/jobs. FileIDs is a
// pointer so that a missing file_ids and an empty one both say so.
type connectJobRequest struct {
	FileIDs  *[]string       `json:"file_ids"`
	Mode     string          `json:"mode"`
	Schema   json.RawMessage `json:"schema"`
	SchemaID string          `json:"schema_id"`
	Options  json.RawMessage `json:"options"`
	Name     string          `json:"name"`
}

func (a *API) createConnectJob(c *gin.Context) {
	var req connectJobRequest
	if err := decodeJSON(c, &req); err != nil {
		a.failCreating(c, principal(c).OrgID, err)
		return
	}
	var ids []string
	if req.FileIDs != nil {
		ids = *req.FileIDs
	}
	in := jobs.Params{Mode: req.Mode, Schema: present(req.Schema), SchemaID: req.SchemaID, Options: present(req.Options), Name: req.Name}
	p := principal(c)
	hash := requestHash(c, strings.Join(ids, "\x00"), in.Mode, compactJSON(in.Schema), in.SchemaID, compactJSON(in.Options), in.Name)
	a.createOnce(c, hash, answer{status: http.StatusAccepted}, func(ctx context.Context) (string, any, error) {
		j, err := a.deps.Connect.CreateJob(ctx, p, ids, in)
		if err != nil {
			return "", nil, err
		}
		return jobPath(j), newJobJSON(j), nil
	})
}

// present is a JSON value, or nil when it is absent or null.
func present(raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// compactJSON is a JSON value without insignificant white space, so the
// same document hashes the same however it is laid out.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
