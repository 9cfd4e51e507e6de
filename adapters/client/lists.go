package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// TargetSchema is a target schema document (API.md §6), for building one
// in code; CreateSchema and CreateJob take it marshaled.
type TargetSchema struct {
	Fields        []Field      `json:"fields"`
	MissingValues []string     `json:"missingValues,omitempty"`
	PrimaryKey    []string     `json:"primaryKey,omitempty"`
	Rules         []Rule       `json:"rules,omitempty"`
	ForeignKeys   []ForeignKey `json:"foreignKeys,omitempty"`
}

// Field is one field of a target schema.
type Field struct {
	Name        string       `json:"name"`
	Type        string       `json:"type,omitempty"`   // string (default), integer, number, boolean, date, datetime, time, year
	Format      string       `json:"format,omitempty"` // email, uri, uuid, phone, country, currency for strings
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	Constraints *Constraints `json:"constraints,omitempty"`
	Aliases     []string     `json:"aliases,omitempty"`
	TrueValues  []string     `json:"trueValues,omitempty"`
	FalseValues []string     `json:"falseValues,omitempty"`
	DecimalChar string       `json:"decimalChar,omitempty"`
	GroupChar   string       `json:"groupChar,omitempty"`
	// Compute is a CEL expression over row.<field> and source["Header"]
	// that derives the field's value; no column maps to it.
	Compute string `json:"compute,omitempty"`
}

// Constraints restrict a field's values.
type Constraints struct {
	Required  bool              `json:"required,omitempty"`
	Unique    bool              `json:"unique,omitempty"`
	Enum      []json.RawMessage `json:"enum,omitempty"`
	Pattern   string            `json:"pattern,omitempty"`
	Minimum   json.RawMessage   `json:"minimum,omitempty"`
	Maximum   json.RawMessage   `json:"maximum,omitempty"`
	MinLength *int              `json:"minLength,omitempty"`
	MaxLength *int              `json:"maxLength,omitempty"`
	// InList is a reference list's id (lst_…): a value not in it is the
	// issue not_in_list.
	InList string `json:"inList,omitempty"`
}

// Rule is a CEL expression every row must satisfy; a row where it is
// false has the issue rule_violation.
type Rule struct {
	Name       string   `json:"name"`
	Expression string   `json:"expression"`
	Message    string   `json:"message,omitempty"`
	Fields     []string `json:"fields,omitempty"`
	Severity   string   `json:"severity,omitempty"` // error (default) or warning
}

// ForeignKey is a Table Schema foreign key to a reference list:
// {Fields: "sku", Reference: {Resource: "lst_…", Fields: "value"}}.
type ForeignKey struct {
	Fields    string              `json:"fields"`
	Reference ForeignKeyReference `json:"reference"`
}

// ForeignKeyReference is the list a foreign key names.
type ForeignKeyReference struct {
	Resource string `json:"resource"`
	Fields   string `json:"fields"` // "value"
}

// List is a reference list.
type List struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Count   int64           `json:"count"` // distinct values
	Created time.Time       `json:"created_at"`
	Raw     json.RawMessage `json:"-"`
}

func (l *List) keep(raw []byte) { l.Raw = raw }

// CreateList stores a reference list of the values (a JSON body: for
// large lists use UploadList).
func (c *Client) CreateList(ctx context.Context, name string, values []string) (*List, error) {
	b, err := jsonBody(map[string]any{"name": name, "values": values})
	if err != nil {
		return nil, err
	}
	var l List
	return &l, c.call(ctx, request{method: http.MethodPost, path: "/v1/lists", body: b, contentType: "application/json", replayable: true}, &l)
}

// UploadList streams a file of one value a line (up to 10M) into a
// reference list.
func (c *Client) UploadList(ctx context.Context, name string, file Upload) (*List, error) {
	var l List
	return &l, c.upload(ctx, "/v1/lists", file, map[string]string{"name": name}, &l)
}

// GetList reads a reference list.
func (c *Client) GetList(ctx context.Context, id string) (*List, error) {
	var l List
	return &l, c.call(ctx, request{method: http.MethodGet, path: "/v1/lists/" + esc(id)}, &l)
}

// DeleteList deletes a reference list; the server refuses (409) while a
// job that is not finished uses it.
func (c *Client) DeleteList(ctx context.Context, id string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: "/v1/lists/" + esc(id)}, nil)
}

// Lists iterates over the reference lists, newest first.
func (c *Client) Lists(ctx context.Context, p ListParams) iter.Seq2[*List, error] {
	return pages[*List](ctx, c, "/v1/lists", url.Values{}, p.PageSize)
}
