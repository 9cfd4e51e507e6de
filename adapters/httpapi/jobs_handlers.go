package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/importsessions"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// uploadBuffer is the read buffer under a multipart upload.
const uploadBuffer = 256 << 10

// maxField bounds each non-file part of an upload (schema, options, …).
const maxField = 1 << 20

// createJob takes a multipart upload into storage and makes its job,
// step by step: receive the parts (the file streams to storage as it
// arrives), settle the job's settings (an import session's are the
// session's), then create the job once per Idempotency-Key. A stored file
// that does not become a job (a refusal, a replay) is removed again.
func (a *API) createJob(c *gin.Context) {
	ctx, p := c.Request.Context(), principal(c)
	up, form, err := a.receiveJob(c, p)
	var in jobs.Params
	if err == nil {
		in, err = jobSettings(c, p, form.Params)
	}
	if err != nil {
		a.deps.JobCreator.Discard(ctx, up)
		a.failCreating(c, p.OrgID, err)
		return
	}
	created := a.createOnce(c, form.hash(c, up), answer{status: http.StatusAccepted}, func(ctx context.Context) (string, any, error) {
		j, err := a.deps.JobCreator.Create(ctx, p, up, in)
		if err != nil {
			return "", nil, err
		}
		return jobPath(j), newJobJSON(j), nil
	})
	if !created {
		a.deps.JobCreator.Discard(ctx, up)
	}
}

// receiveJob reads a job's multipart body: the file part streams into
// storage, the other parts are the job's settings, in any order.
func (a *API) receiveJob(c *gin.Context, p identity.Principal) (*jobs.Upload, jobForm, error) {
	var up *jobs.Upload
	var form jobForm
	err := a.readUpload(c, func(filename string, r io.Reader) error {
		up = a.deps.JobCreator.NewUpload(p, filename)
		return a.deps.JobCreator.Store(c.Request.Context(), up, r)
	}, form.field)
	return up, form, err
}

// jobForm is the settings a job's multipart body sends.
type jobForm struct{ jobs.Params }

// field takes one part other than the file; an unknown one is refused.
func (f *jobForm) field(name string, value []byte) error {
	switch name {
	case "mode":
		f.Mode = string(value)
	case "schema":
		f.Schema = value
	case "schema_id":
		f.SchemaID = string(value)
	case "options":
		f.Options = value
	case "name":
		f.Name = string(value)
	default:
		return unknownPart(name)
	}
	return nil
}

// hash fingerprints the request as sent, for Idempotency-Key: the same
// request means the same fields and the same file content, whatever the
// multipart boundary (API.md §1).
func (f jobForm) hash(c *gin.Context, up *jobs.Upload) string {
	return requestHash(c, f.Mode, string(f.Schema), f.SchemaID, string(f.Options), f.Name, up.SHA256())
}

// jobSettings are the settings a job is created with: the request's, or
// for an import session's client secret, the session's, which it
// authenticated as (the secret may send only file and name).
func jobSettings(c *gin.Context, p identity.Principal, in jobs.Params) (jobs.Params, error) {
	if p.Method != identity.ByImportSession {
		return in, nil
	}
	return importsessions.JobParams(importSession(c), in, c.GetHeader("Accept-Language"))
}

// readUpload reads a multipart/form-data body as a stream (never
// FormFile, which buffers): the one "file" part goes to store as it
// arrives, cut off at the upload limit; every other part, at most
// maxField bytes, goes to field. Parts may come in any order. No file part
// is 400 file_required.
func (a *API) readUpload(c *gin.Context, store func(filename string, r io.Reader) error, field func(name string, value []byte) error) error {
	mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return domain.Errorf(domain.ErrInvalid, domain.CodeUnsupportedMediaType, "Send the request as multipart/form-data with a file part.")
	}
	if c.Request.ContentLength == 0 {
		// HTTP/1.1 gives a request with neither Content-Length nor
		// Transfer-Encoding no body: the bytes a client sends after such
		// headers are no upload, and would be read as its next request.
		// Closing the connection after the answer drops them.
		c.Header("Connection", "close")
		return domain.Invalid("The request has no body: send the multipart body with a Content-Length or with Transfer-Encoding: chunked.")
	}
	// The multipart reader pulls 4 KiB at a time; a larger buffer under it
	// turns a 1 GiB upload's quarter of a million small socket reads into
	// a few thousand large ones.
	limited := http.MaxBytesReader(c.Writer, c.Request.Body, a.cfg.MaxUploadBytes+8*maxField)
	c.Request.Body = struct {
		io.Reader
		io.Closer
	}{bufio.NewReaderSize(limited, uploadBuffer), limited}
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return domain.Invalid("The multipart body cannot be read: %v.", err)
	}
	gotFile := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return uploadError(err, a.cfg.MaxUploadBytes)
		}
		name := part.FormName()
		if !cleanText(name) || !cleanText(part.FileName()) {
			return errBadText
		}
		if name == "file" {
			if gotFile {
				return domain.Invalid("Send exactly one file part.")
			}
			gotFile = true
			if err := store(part.FileName(), &limitReader{r: part, n: a.cfg.MaxUploadBytes}); err != nil {
				return uploadError(err, a.cfg.MaxUploadBytes)
			}
			continue
		}
		value, err := io.ReadAll(io.LimitReader(part, maxField+1))
		if err != nil {
			return uploadError(err, a.cfg.MaxUploadBytes)
		}
		if len(value) > maxField {
			return domain.Invalid("The %s part is over %d bytes.", name, maxField)
		}
		if !cleanText(string(value)) || !cleanJSON(value) { // schema and options are JSON
			return errBadText
		}
		if err := field(name, value); err != nil {
			return err
		}
	}
	if !gotFile {
		return domain.Errorf(domain.ErrInvalid, domain.CodeFileRequired, "The request has no file part.")
	}
	return nil
}

func unknownPart(name string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "Unknown part " + strconv.Quote(name) + ".",
		Fields: []domain.FieldError{{Field: name, Message: "unknown part"}}}
}

// requestHash fingerprints a creating request for Idempotency-Key.
func requestHash(c *gin.Context, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(c.Request.Method + " " + c.Request.URL.Path))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// limitReader fails once more than n bytes are read: the upload is cut
// off at the limit, not read to its end.
type limitReader struct {
	r io.Reader
	n int64
}

var errTooLarge = errors.New("file too large")

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return n, errTooLarge
	}
	return n, err
}

func uploadError(err error, limit int64) error {
	var tooBig *http.MaxBytesError
	if errors.Is(err, errTooLarge) || errors.As(err, &tooBig) {
		return domain.Errorf(domain.ErrInvalid, domain.CodeFileTooLarge, "The file is over the limit of %d bytes.", limit)
	}
	if domain.CodeOf(err) != "" {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return domain.Invalid("The body ended before the multipart's closing boundary: the connection closed early, or Content-Length is shorter than the body.")
	}
	return domain.Invalid("The upload was cut short: %v.", err)
}

func (a *API) getJob(c *gin.Context) {
	j, err := a.deps.JobReader.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newJobJSON(j))
}

// listJobs lists the organization's jobs of one source type ("" for all).
func (a *API) listJobs(sourceType job.SourceType) gin.HandlerFunc {
	return func(c *gin.Context) {
		page, err := pageOf(c)
		if err != nil {
			fail(c, err)
			return
		}
		f := ports.JobFilter{SourceType: sourceType}
		if s := c.Query("status"); s != "" {
			if f.Status, err = job.ParseStatus(s); err != nil {
				fail(c, err)
				return
			}
		}
		list, next, err := a.deps.JobReader.List(c.Request.Context(), principal(c), f, page)
		if err != nil {
			fail(c, err)
			return
		}
		views := make([]jobJSON, len(list))
		for i, j := range list {
			views[i] = newJobJSON(j)
		}
		c.JSON(http.StatusOK, newList(views, next))
	}
}

func (a *API) cancelJob(c *gin.Context) {
	j, err := a.deps.JobCanceler.Cancel(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newJobJSON(j))
}

func (a *API) deleteJob(c *gin.Context) {
	if err := a.deps.JobCanceler.Delete(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

var issueColumns = []string{"row", "source_file", "column", "field", "severity", "code", "message", "value"}

// jobResult serves rows or issues: a JSON page (cursor = byte offset, so
// page N costs what page 1 costs), or every line as JSON lines or CSV.
// download is the format of the …/rows.jsonl and …/rows.csv routes, ""
// on …/rows, where ?format= chooses: the downloads are operations of their
// own so that generated clients do not parse JSON lines as one JSON value.
func (a *API) jobResult(which jobs.Result, download string) gin.HandlerFunc {
	return func(c *gin.Context) {
		q, err := resultQueryOf(c, which, download)
		if err != nil {
			fail(c, err)
			return
		}
		if q.format == "xlsx" || q.format == "parquet" {
			a.generatedResult(c, which, q)
			return
		}
		format, numbersAsText, page, offset := q.format, q.numbersAsText, q.page, q.offset
		// A page starts where a line starts: read from the byte before it,
		// which must end the previous line, so a made-up offset cannot cut
		// a row in two.
		start := max(offset-1, 0)
		j, opened, err := a.deps.JobReader.OpenResult(c.Request.Context(), principal(c), c.Param("id"), which, start)
		if err != nil {
			fail(c, err)
			return
		}
		defer func() { _ = opened.Close() }() // a reader: nothing was written that closing could lose
		if offset > 0 {
			var b [1]byte
			if _, err := io.ReadFull(opened, b[:]); err != nil || b[0] != '\n' {
				fail(c, errInvalidCursor)
				return
			}
		}
		if format != "json" {
			etag := resultETag(j, which, q)
			if notModified(c, etag) {
				return
			}
			if format == "jsonl" && !numbersAsText {
				a.rangedJSONL(c, j, which, opened, etag)
				return
			}
			c.Header("ETag", etag)
		}
		var rc io.Reader = opened
		if numbersAsText {
			rc = newNumbersAsText(opened)
		}
		// Downloads take as long as the client reads: no write deadline.
		_ = http.NewResponseController(c.Writer).SetWriteDeadline(time.Time{})
		// The streamed formats are downloads, named after the job and result.
		attachment := `attachment; filename="` + j.ID + "-" + string(which)[:len(which)-len(".jsonl")]
		switch format {
		case "jsonl":
			c.Header("Content-Type", "application/x-ndjson")
			c.Header("Content-Disposition", attachment+`.jsonl"`)
			c.Status(http.StatusOK)
			_, _ = io.Copy(c.Writer, rc)
		case "csv":
			columns := issueColumns
			if which == jobs.Rows {
				columns = jobs.FieldNames(j)
			}
			c.Header("Content-Type", "text/csv; charset=utf-8")
			c.Header("Content-Disposition", attachment+`.csv"`)
			c.Status(http.StatusOK)
			writeCSV(c.Writer, rc, columns)
		default:
			writePage(c, rc, offset, page.Limit, j.ID, which)
		}
	}
}

// resultQuery is what a result request asks for: the format, numbers as
// text, and for a JSON page its size and byte offset.
type resultQuery struct {
	format        string
	numbersAsText bool
	rejectedOnly  bool // the annotated workbook of the rejected rows only
	page          ports.Page
	offset        int64
}

func resultQueryOf(c *gin.Context, which jobs.Result, download string) (resultQuery, error) {
	q := resultQuery{format: download, page: ports.Page{Limit: 50}}
	if q.format == "" {
		q.format = c.DefaultQuery("format", "json")
	}
	switch {
	case q.format == "json", q.format == "jsonl", q.format == "csv", q.format == "xlsx":
	case q.format == "parquet" && which == jobs.Rows:
	case which == jobs.Rows:
		return q, domain.Invalid("format must be json, jsonl, csv, xlsx or parquet")
	default:
		return q, domain.Invalid("format must be json, jsonl, csv or xlsx")
	}
	switch c.DefaultQuery("rows", "all") {
	case "all":
	case "rejected":
		q.rejectedOnly = which == jobs.Issues
	default:
		return q, domain.Invalid("rows must be all or rejected")
	}
	// numbers=string writes rows' numbers as JSON strings: integers past
	// 2^53 keep every digit in clients whose JSON numbers are doubles
	// (JavaScript, most generated clients).
	switch c.DefaultQuery("numbers", "json") {
	case "json":
	case "string":
		q.numbersAsText = which == jobs.Rows && q.format != "csv"
	default:
		return q, domain.Invalid("numbers must be json or string")
	}
	if q.format != "json" {
		return q, nil
	}
	var err error
	if q.page, err = pageOf(c); err != nil {
		return q, err
	}
	q.offset, err = resultOffset(q.page.Cursor, c.Param("id"), which)
	return q, err
}

var errInvalidCursor = domain.Errorf(domain.ErrInvalid, domain.CodeInvalidCursor, "The cursor is not one this list handed out; start again without it.")

// resultCursor names the start of the next page of one job's result: a
// byte offset, with the job and result it belongs to, so a cursor of
// another job or result is refused rather than read from a wrong place.
func resultCursor(jobID string, which jobs.Result, offset int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(jobID + " " + string(which) + " " + strconv.FormatInt(offset, 10)))
}

func resultOffset(cursor, jobID string, which jobs.Result) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, errInvalidCursor
	}
	parts := strings.Split(string(raw), " ")
	if len(parts) != 3 || parts[0] != jobID || parts[1] != string(which) {
		return 0, errInvalidCursor
	}
	offset, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || offset < 0 {
		return 0, errInvalidCursor
	}
	return offset, nil
}

// writePage answers one JSON page of at most limit lines from offset.
func writePage(c *gin.Context, rc io.Reader, offset int64, limit int, jobID string, which jobs.Result) {
	br := bufio.NewReaderSize(rc, 64<<10)
	var buf bytes.Buffer
	buf.WriteString(`{"object":"list","data":[`)
	n := 0
	pos := offset
	more := false
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if n == limit {
				more = true
				break
			}
			if n > 0 {
				buf.WriteByte(',')
			}
			buf.Write(bytes.TrimRight(line, "\n"))
			pos += int64(len(line))
			n++
		}
		if err != nil {
			break
		}
	}
	buf.WriteString(`],"next_cursor":`)
	if more {
		buf.WriteString(strconv.Quote(resultCursor(jobID, which, pos)))
	} else {
		buf.WriteString("null")
	}
	buf.WriteString("}")
	c.Data(http.StatusOK, "application/json; charset=utf-8", buf.Bytes())
}
