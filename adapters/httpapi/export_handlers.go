package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Content types of the generated downloads.
const (
	xlsxContentType    = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	parquetContentType = "application/vnd.apache.parquet"
)

// Generated downloads (XLSX, Parquet) are built in lanes of slots that
// organizations share fairly (jobs.Gate): a result of at most
// smallExportRows rows is built in the small lane, so it never waits
// behind big ones; a bigger one, which keeps a CPU busy for as long as
// the result is long, in the big lane. A slot is held while the file is
// built, never while it is sent: the built file is kept in storage and
// later downloads of the same job are served from there.
const (
	smallExportRows       = 100_000
	smallExportSlots      = 4
	smallExportSlotsOrg   = 2
	bigExportSlots        = 2
	bigExportSlotsOrg     = 1
	exportSendIdleTimeout = 30 * time.Second // a client that reads nothing for this long is cut off
)

type exportLanes struct{ small, big *jobs.Gate }

func newExportLanes() exportLanes {
	return exportLanes{small: jobs.NewGate(smallExportSlots, smallExportSlotsOrg), big: jobs.NewGate(bigExportSlots, bigExportSlotsOrg)}
}

// lane is the gate of a job's download: by its rows (rows, rejected
// rows and the issues' workbook read as many).
func (l exportLanes) lane(j job.Job) *jobs.Gate {
	if j.Result != nil && j.Result.RowCount+j.Result.RejectedCount <= smallExportRows {
		return l.small
	}
	return l.big
}

// resultETag names one download of a finished job's result: the blobs
// never change once the job succeeded, and the same request builds the
// same bytes, so the tag is strong and a Range of it can resume.
func resultETag(j job.Job, which jobs.Result, q resultQuery) string {
	finished := ""
	if j.FinishedAt != nil {
		finished = j.FinishedAt.UTC().Format(time.RFC3339Nano)
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{j.ID, string(which), q.format, finished,
		strconv.FormatBool(q.numbersAsText), strconv.FormatBool(q.rejectedOnly)}, "\x00")))
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// notModified answers 304 when the client holds this version already.
func notModified(c *gin.Context, etag string) bool {
	if !etagMatches(c.GetHeader("If-None-Match"), etag) {
		return false
	}
	c.Header("ETag", etag)
	c.Status(http.StatusNotModified)
	return true
}

// generatedResult answers rows as XLSX or Parquet, or the annotated
// workbook of the errors. The file is built in a temporary file first, so
// any problem (a cell too long for a spreadsheet) is an answer of its own
// before the first byte, and the download has a length and ranges. A
// succeeded job's file is then kept in storage (jobs.Export) and served
// from there to every later download of it.
func (a *API) generatedResult(c *gin.Context, which jobs.Result, q resultQuery) {
	ctx := c.Request.Context()
	p, id := principal(c), c.Param("id")
	j, err := a.deps.JobReader.Get(ctx, p, id)
	if err != nil {
		fail(c, err)
		return
	}
	etag := resultETag(j, which, q)
	if j.Status == job.Succeeded && notModified(c, etag) {
		return
	}
	name, contentType := "rows.xlsx", xlsxContentType
	switch {
	case which == jobs.Issues:
		name = "issues.xlsx"
	case q.format == "parquet":
		name, contentType = "rows.parquet", parquetContentType
	}
	c.Header("Content-Type", contentType)
	c.Header("Content-Disposition", `attachment; filename="`+j.ID+"-"+name+`"`)
	kept := jobs.Export(strings.Trim(etag, `"`) + "-" + name)
	if j.Status == job.Succeeded && a.serveKept(c, j, kept, etag) {
		return
	}
	tmp, err := a.buildExport(ctx, p, j, which, q)
	if err != nil {
		c.Header("Content-Type", "")
		c.Header("Content-Disposition", "")
		fail(c, err)
		return
	}
	keeping := make(chan struct{})
	defer func() {
		<-keeping
		_ = tmp.Close()           // read only from here
		_ = os.Remove(tmp.Name()) // a temporary file; the system's clean-up takes what a crash leaves
	}()
	go a.keepExport(ctx, j, kept, tmp.Name(), keeping) // while it is sent
	c.Header("ETag", etag)
	http.ServeContent(idleDeadlineWriter(c.Writer, exportSendIdleTimeout), c.Request, "", time.Time{}, tmp)
}

// buildExport builds a download into a temporary file in a slot of its
// lane, which it gives back before the file is sent.
func (a *API) buildExport(ctx context.Context, p identity.Principal, j job.Job, which jobs.Result, q resultQuery) (*os.File, error) {
	release, err := a.exports.lane(j).Acquire(ctx, j.OrgID)
	if err != nil {
		return nil, err
	}
	defer release()
	tmp, err := os.CreateTemp("", "tabnorm-export-*")
	if err != nil {
		return nil, err
	}
	switch {
	case which == jobs.Issues:
		err = a.writeAnnotated(ctx, p, j.ID, q.rejectedOnly, tmp)
	case q.format == "xlsx":
		err = a.writeRowsXLSX(ctx, p, j.ID, tmp)
	default:
		err = a.writeRowsParquet(ctx, p, j.ID, tmp)
	}
	if err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return nil, err
	}
	return tmp, nil
}

// keepExport stores a succeeded job's built download for its later
// downloads, even when this request's client went away; done is closed
// once the file is no longer read.
func (a *API) keepExport(ctx context.Context, j job.Job, kept jobs.Result, path string, done chan<- struct{}) {
	defer close(done)
	if j.Status != job.Succeeded {
		return
	}
	f, err := os.Open(path) // #nosec G304 -- the temporary file this request made
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }() // read only
	keepCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	if err := a.deps.JobReader.KeepExport(keepCtx, j, kept, f); err != nil {
		a.log.WarnContext(ctx, "keep a generated download", "job_id", j.ID, "error", err)
	}
}

// serveKept serves a download kept in storage by an earlier request, and
// tells whether there was one.
func (a *API) serveKept(c *gin.Context, j job.Job, kept jobs.Result, etag string) bool {
	ctx, p := c.Request.Context(), principal(c)
	size, err := a.deps.JobReader.ResultSize(ctx, j, kept)
	if err != nil {
		return false // not kept (yet), or gone: build it
	}
	b := &blobRange{size: size, open: func(offset int64) (io.ReadCloser, error) {
		_, rc, err := a.deps.JobReader.OpenResult(ctx, p, j.ID, kept, offset)
		return rc, err
	}}
	defer b.Close()
	c.Header("ETag", etag)
	http.ServeContent(idleDeadlineWriter(c.Writer, exportSendIdleTimeout), c.Request, "", time.Time{}, b)
	return true
}

// idleDeadlineWriter sends a download with a write deadline that each
// write moves on: a client that reads nothing for idle is cut off, one
// that reads slowly is not.
func idleDeadlineWriter(w http.ResponseWriter, idle time.Duration) http.ResponseWriter {
	return &idleDeadline{ResponseWriter: w, rc: http.NewResponseController(w), idle: idle}
}

type idleDeadline struct {
	http.ResponseWriter
	rc   *http.ResponseController
	idle time.Duration
}

func (d *idleDeadline) Write(b []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.idle))
	return d.ResponseWriter.Write(b)
}

func (d *idleDeadline) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// targetColumns are the output columns of a job: its schema's fields.
func targetColumns(j job.Job) ([]export.Column, error) {
	if j.Schema == nil {
		return nil, domain.Errorf(domain.ErrConflict, domain.CodeConflict, "The job has no target schema to type its columns with.")
	}
	s, err := schema.Parse(j.Schema)
	if err != nil {
		return nil, err
	}
	return export.Columns(s), nil
}

// openRows opens a finished job's rows and its columns.
func (a *API) openRows(ctx context.Context, p identity.Principal, id string) (io.ReadCloser, []export.Column, error) {
	j, rc, err := a.deps.JobReader.OpenResult(ctx, p, id, jobs.Rows, 0)
	if err != nil {
		return nil, nil, err
	}
	cols, err := targetColumns(j)
	if err != nil {
		_ = rc.Close() // a reader: nothing to lose
		return nil, nil, err
	}
	return rc, cols, nil
}

func (a *API) writeRowsXLSX(ctx context.Context, p identity.Principal, id string, out io.Writer) error {
	rc, cols, err := a.openRows(ctx, p, id)
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }() // a reader: nothing to lose
	return export.WriteRowsXLSX(out, rc, cols, export.XLSXOptions{SheetRows: a.cfg.XLSXSheetRows})
}

// writeRowsParquet reads the rows twice: once to type the columns (an
// integer past int64 makes a DECIMAL column), once to write them.
func (a *API) writeRowsParquet(ctx context.Context, p identity.Principal, id string, out io.Writer) error {
	rc, cols, err := a.openRows(ctx, p, id)
	if err != nil {
		return err
	}
	plans, err := export.PlanParquet(rc, cols)
	_ = rc.Close() // a reader: nothing to lose
	if err != nil {
		return err
	}
	if rc, _, err = a.openRows(ctx, p, id); err != nil {
		return err
	}
	defer func() { _ = rc.Close() }() // a reader: nothing to lose
	return export.WriteRowsParquet(out, rc, cols, plans, export.ParquetOptions{})
}

// writeAnnotated builds the errors workbook from the job's issues and its
// files read again.
func (a *API) writeAnnotated(ctx context.Context, p identity.Principal, id string, rejectedOnly bool, out io.Writer) error {
	_, rc, err := a.deps.JobReader.OpenResult(ctx, p, id, jobs.Issues, 0)
	if err != nil {
		return err
	}
	ann, err := export.ReadIssues(rc)
	_ = rc.Close() // a reader: nothing to lose
	if err != nil {
		return err
	}
	w, err := export.NewAnnotated(ann, rejectedOnly, export.XLSXOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = w.Close() }() // removes what it spilled; the workbook was written or failed
	visit := jobs.SourceVisit{File: w.File, Row: func(rec table.Record) error { return w.Row(rec) }}
	if _, err := a.deps.JobReader.ReadSource(ctx, p, id, visit); err != nil {
		return err
	}
	return w.Write(out)
}

// blobRange reads a result blob as a ReadSeeker for http.ServeContent,
// opening the blob again at the offset a Range asks for.
type blobRange struct {
	open func(offset int64) (io.ReadCloser, error)
	rc   io.ReadCloser
	size int64
	pos  int64
	at   int64 // where rc reads from next
}

func (b *blobRange) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += b.pos
	case io.SeekEnd:
		offset += b.size
	}
	if offset < 0 {
		return 0, errors.New("seek before the start")
	}
	b.pos = offset
	return offset, nil
}

func (b *blobRange) Read(p []byte) (int, error) {
	if b.pos >= b.size {
		return 0, io.EOF
	}
	if b.rc == nil || b.at != b.pos {
		if b.rc != nil {
			_ = b.rc.Close() // a reader: nothing to lose
		}
		rc, err := b.open(b.pos)
		if err != nil {
			b.rc = nil
			return 0, err
		}
		b.rc, b.at = rc, b.pos
	}
	n, err := b.rc.Read(p)
	b.pos += int64(n)
	b.at = b.pos
	return n, err
}

func (b *blobRange) Close() {
	if b.rc != nil {
		_ = b.rc.Close() // a reader: nothing to lose
	}
}

// rangedJSONL serves a result's JSON lines as stored, with ranges, so a
// long download can resume where it broke.
func (a *API) rangedJSONL(c *gin.Context, j job.Job, which jobs.Result, opened io.ReadCloser, etag string) {
	ctx, p := c.Request.Context(), principal(c)
	size, err := a.deps.JobReader.ResultSize(ctx, j, which)
	if err != nil {
		_ = opened.Close() // a reader: nothing to lose
		fail(c, err)
		return
	}
	b := &blobRange{rc: opened, size: size, open: func(offset int64) (io.ReadCloser, error) {
		_, rc, err := a.deps.JobReader.OpenResult(ctx, p, j.ID, which, offset)
		return rc, err
	}}
	defer b.Close()
	_ = http.NewResponseController(c.Writer).SetWriteDeadline(time.Time{})
	c.Header("Content-Type", "application/x-ndjson")
	c.Header("Content-Disposition", `attachment; filename="`+j.ID+"-"+strings.TrimSuffix(string(which), ".jsonl")+`.jsonl"`)
	c.Header("ETag", etag)
	http.ServeContent(c.Writer, c.Request, "", time.Time{}, b)
}
