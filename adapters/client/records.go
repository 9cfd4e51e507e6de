package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Record is a record of a succeeded job as it comes out now, its edits
// applied, valid or rejected (API.md §5.6, GET …/records).
type Record struct {
	Row        int64   `json:"row"`
	SourceFile *string `json:"source_file"`
	// Valid says the record would now be kept.
	Valid bool `json:"valid"`
	// Values is the record as it comes out (refused values null).
	Values json.RawMessage `json:"values"`
	// Cells are the text read for each mapped field: the file's or the
	// edit's; nil when missing or cleared.
	Cells  map[string]*string `json:"cells"`
	Edited []string           `json:"edited"` // the fields edits set
	Issues []Issue            `json:"issues"`
	Raw    json.RawMessage    `json:"-"`
}

func (r *Record) keep(raw []byte) { r.Raw = raw }

// RecordsQuery chooses a job's records and their order; the zero value is
// all of them in the files' order.
type RecordsQuery struct {
	Status string // "all" (""), "valid" or "rejected"
	// Field and Code keep the records with an issue of that field and
	// code (either may be empty).
	Field, Code string
	Q           string // a cell's text contains it, case-insensitively
	Sort        string // a field: by its typed value, nulls last
	Desc        bool
	// Limit is a page's size (0: the server's, 100; at most 500); Offset a
	// page's first position in the filtered, sorted list.
	Limit  int
	Offset int64
}

func (q RecordsQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"status": q.Status, "field": q.Field, "code": q.Code, "q": q.Q, "sort": q.Sort} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Desc {
		v.Set("order", "desc")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.FormatInt(q.Offset, 10))
	}
	return v
}

// RecordsPage is one page of a job's records.
type RecordsPage struct {
	Data       []*Record `json:"data"`
	NextCursor *string   `json:"next_cursor"`
	Fields     []string  `json:"fields"` // the schema's fields, in order
	// Total is how many records the query keeps.
	Total int64           `json:"total"`
	Raw   json.RawMessage `json:"-"`
}

// keep keeps the page, and each record as the server sent it.
func (p *RecordsPage) keep(raw []byte) {
	p.Raw = raw
	var items struct {
		Data []json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &items) == nil && len(items.Data) == len(p.Data) {
		for i, r := range p.Data {
			r.Raw = items.Data[i]
		}
	}
}

// RecordsPage reads the page of a job's records at q.Offset: what a grid
// shows when it jumps to a position.
func (c *Client) RecordsPage(ctx context.Context, jobID string, q RecordsQuery) (*RecordsPage, error) {
	var p RecordsPage
	return &p, c.call(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/records", query: q.values()}, &p)
}

// Records iterates over a job's records from q.Offset on, page by page
// (the next pages by cursor).
func (c *Client) Records(ctx context.Context, jobID string, q RecordsQuery) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		v := q.values()
		for {
			var p RecordsPage
			if err := c.call(ctx, request{method: http.MethodGet, path: jobPath(jobID) + "/records", query: v}, &p); err != nil {
				yield(nil, err)
				return
			}
			for _, r := range p.Data {
				if !yield(r, nil) {
					return
				}
			}
			if p.NextCursor == nil {
				return
			}
			v.Del("offset")
			v.Set("cursor", *p.NextCursor)
		}
	}
}
