package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Schema is a saved target schema.
type Schema struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Schema  json.RawMessage `json:"schema"`
	Created time.Time       `json:"created_at"`
	Raw     json.RawMessage `json:"-"`
}

func (s *Schema) keep(raw []byte) { s.Raw = raw }

// CreateSchema saves a schema document under a name.
func (c *Client) CreateSchema(ctx context.Context, name string, schema json.RawMessage) (*Schema, error) {
	b, err := jsonBody(map[string]any{"name": name, "schema": schema})
	if err != nil {
		return nil, err
	}
	var s Schema
	return &s, c.call(ctx, request{method: http.MethodPost, path: "/v1/schemas", body: b, contentType: "application/json", replayable: true}, &s)
}

// GetSchema reads a saved schema.
func (c *Client) GetSchema(ctx context.Context, id string) (*Schema, error) {
	var s Schema
	return &s, c.call(ctx, request{method: http.MethodGet, path: "/v1/schemas/" + esc(id)}, &s)
}

// DeleteSchema deletes a saved schema.
func (c *Client) DeleteSchema(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/schemas/" + esc(id)}, nil)
}

// Schemas iterates over the saved schemas, newest first.
func (c *Client) Schemas(ctx context.Context, p ListParams) iter.Seq2[*Schema, error] {
	return pages[*Schema](ctx, c, "/v1/schemas", url.Values{}, p.PageSize)
}

// File is a file of the connect library, or of a job's source.
type File struct {
	ID        string          `json:"id"`
	Filename  string          `json:"filename"`
	Format    string          `json:"format"`
	SizeBytes int64           `json:"size_bytes"`
	SHA256    string          `json:"sha256"`
	Raw       json.RawMessage `json:"-"`
}

func (f *File) keep(raw []byte) { f.Raw = raw }

// UploadFile streams a file into the connect library.
func (c *Client) UploadFile(ctx context.Context, file Upload) (*File, error) {
	var f File
	return &f, c.upload(ctx, "/v1/connect/files", file, nil, &f)
}

// DeleteFile deletes a file of the connect library.
func (c *Client) DeleteFile(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/connect/files/" + esc(id)}, nil)
}

// Files iterates over the connect library, newest first.
func (c *Client) Files(ctx context.Context, p ListParams) iter.Seq2[*File, error] {
	return pages[*File](ctx, c, "/v1/connect/files", url.Values{}, p.PageSize)
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func asError(err error, target **Error) bool { return errors.As(err, target) }
