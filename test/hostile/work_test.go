package hostile

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// stopBound is how soon a canceled or timed-out job must stop: 2 s,
// stretched by TABNORM_TEST_TIME_SCALE (a factor, 1 when unset) on a slow
// or loaded machine.
func stopBound() time.Duration { return scaled(2 * time.Second) }

func scaled(d time.Duration) time.Duration {
	if f, err := strconv.ParseFloat(os.Getenv("TABNORM_TEST_TIME_SCALE"), 64); err == nil && f > 0 {
		return time.Duration(float64(d) * f)
	}
	return d
}

// workbookOf writes a one-sheet workbook (the parts of bombWorkbook, the
// given ones replacing or joining them) deflated fast, and padded with
// incompressible bytes to stay inside the 100:1 ratio the reader checks
// first: a file the size an attacker would have to upload.
func workbookOf(t *testing.T, parts ...bombPart) string {
	t.Helper()
	path := bombWorkbook(t)
	base, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	byName := map[string]bool{}
	for _, p := range parts {
		byName[p.name] = true
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	unpacked := 0
	write := func(p bombPart) {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		bw.WriteString(p.head)
		for range p.times {
			bw.WriteString(p.body)
		}
		bw.WriteString(p.tail)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		unpacked += len(p.head) + len(p.body)*p.times + len(p.tail)
	}
	for _, f := range base.File {
		if byName[f.Name] || strings.HasPrefix(f.Name, "xl/media/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		write(bombPart{name: f.Name, head: string(text)})
	}
	for _, p := range parts {
		write(p)
	}
	if pad := unpacked/95 - buf.Len(); pad > 0 {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "xl/media/image1.bin", Method: zip.Store})
		if _, err := io.CopyN(w, rand.Reader, int64(pad)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// duplicateWorkbook is the plain workbook with a second sheet part of the
// same name, whose data differs.
func duplicateWorkbook(t *testing.T) string {
	t.Helper()
	plain, err := os.ReadFile(bombWorkbook(t))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><worksheet `+ns+`><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>other</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row></sheetData></worksheet>`); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// sheetEntries is a workbook part listing n sheets, all naming the one
// sheet part (relationship rId1).
func sheetEntries(n int) bombPart {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><workbook ` + ns + `><sheets>`)
	for i := range n {
		fmt.Fprintf(&b, `<sheet name="S%d" sheetId="%d" r:id="rId1"/>`, i, i+1)
	}
	b.WriteString(`</sheets></workbook>`)
	return bombPart{name: "xl/workbook.xml", head: b.String()}
}

const gb = 1 << 30

// hostileShapes are the workbooks that made the reader work without
// bound: each must now be refused at once, naming the budget it breaks.
func hostileShapes(t *testing.T) []struct{ name, file, want string } {
	code := strings.Repeat("0", 8<<20-100) // 8 MB: one scan of it per cell format was the amplification
	return []struct{ name, file, want string }{
		{"an 8 MB number format used by a million cell formats", workbookOf(t,
			repeat("xl/styles.xml", `<?xml version="1.0"?><styleSheet `+ns+`><numFmts count="1"><numFmt numFmtId="200" formatCode="`+code+`"/></numFmts><cellXfs><xf numFmtId="0"/>`,
				`<xf numFmtId="200"/>`, `</cellXfs></styleSheet>`, (1<<20-1)*len(`<xf numFmtId="200"/>`))),
			"number format budget"},
		{"65,536 sheet entries naming one empty sheet", workbookOf(t, sheetEntries(1<<16),
			repeat("xl/worksheets/sheet1.xml", `<?xml version="1.0"?><worksheet `+ns+`><sheetData/><extLst>`, `<ext uri="x"/>`, `</extLst></worksheet>`, 20<<20)),
			"sheet entries budget"},
		{"two zip entries of one name", duplicateWorkbook(t), "two entries named"},
	}
}

// longShapes are workbooks whose reading is long because they are big
// (within every budget): a gigabyte of markup in the shared strings, in
// the first row, which the reader works through before the first record.
func longShapes(t *testing.T) []struct{ name, file string } {
	return []struct{ name, file string }{
		{"a gigabyte of markup in the shared strings", workbookOf(t,
			repeat("xl/sharedStrings.xml", `<?xml version="1.0"?><sst `+ns+`><si><t>name</t></si><si>`, `<x/>`, `</si></sst>`, gb))},
		{"a gigabyte of markup in the first row", workbookOf(t,
			repeat("xl/worksheets/sheet1.xml", `<?xml version="1.0"?><worksheet `+ns+`><sheetData><row r="1">`, `<x/>`, `</row></sheetData></worksheet>`, gb))},
	}
}

type jobState struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestHostileWorkbooks, on each database: the workbooks that kept a
// node's workers busy are refused at once as unreadable_file naming the
// budget they break; a job reading a long workbook stops within 2 s of
// its cancel (its worker free: its queue entry no longer running) and of
// its timeout (it fails job_timeout). Not parallel: the times are
// measured without the package's other tests beside.
func TestHostileWorkbooks(t *testing.T) {
	hostile, long := hostileShapes(t), longShapes(t)
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			// The jobs refused and canceled run with a timeout they never
			// reach; those timed out, on a service and database of their
			// own, with one the long workbooks pass on any machine: a
			// slower machine only makes them longer, so it is not scaled
			// (the bound on stopping is).
			const timeout = 3 * time.Second
			start := func(timeout time.Duration) (*apptest.App, apptest.Caller) {
				app := apptest.Start(t, kind.New(t), func(c *bootstrap.Config) {
					c.JobTimeout = timeout
					c.HTTP.RateLimit = httpapi.RateLimit{PerSecond: 1e6, Burst: 1e6}
				})
				return app, apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			}
			app, who := start(scaled(10 * timeout))
			for _, s := range hostile {
				t.Run("refused/"+s.name, func(t *testing.T) {
					start := time.Now()
					j := createJob(t, app, who, s.file, nil)
					j = untilEnded(t, app, who, j.ID, scaled(30*time.Second))
					if j.Status != "failed" || j.Error == nil || j.Error.Code != "unreadable_file" || !strings.Contains(j.Error.Message, s.want) {
						t.Fatalf("job ended %s %+v, want unreadable_file naming the %s", j.Status, j.Error, s.want)
					}
					t.Logf("%d-byte upload refused %s after its creation: %s", len(s.file), time.Since(start).Round(time.Millisecond), j.Error.Message[:min(len(j.Error.Message), 160)])
				})
			}
			for _, s := range long {
				t.Run("canceled/"+s.name, func(t *testing.T) { cancelStops(t, app, who, s.file, nil) })
			}
			t.Run("canceled while sampled for review/"+long[0].name, func(t *testing.T) {
				cancelStops(t, app, who, long[0].file, map[string]string{"options": `{"review":true}`})
			})
			timing, whoTiming := start(timeout)
			for _, s := range long {
				t.Run("timed out/"+s.name, func(t *testing.T) {
					j := createJob(t, timing, whoTiming, s.file, nil)
					started := untilRunning(t, timing, whoTiming, j.ID)
					j = untilEnded(t, timing, whoTiming, j.ID, timeout+stopBound()+scaled(5*time.Second))
					took := time.Since(started)
					t.Logf("%d-byte upload: failed %s after it started (timeout %s)", len(s.file), took.Round(time.Millisecond), timeout)
					if j.Status != "failed" || j.Error == nil || j.Error.Code != "job_timeout" {
						t.Fatalf("job ended %s %+v, want job_timeout", j.Status, j.Error)
					}
					if took > timeout+stopBound() {
						t.Fatalf("the job stopped %s after it started; its timeout is %s, the bound %s more", took, timeout, stopBound())
					}
				})
			}
		})
	}
}

// cancelStops starts a job on file (with the given form fields besides
// its schema), cancels it once it runs, and fails unless its worker is
// free within stopBound of the cancel.
func cancelStops(t *testing.T, app *apptest.App, who apptest.Caller, file string, fields map[string]string) {
	t.Helper()
	j := createJob(t, app, who, file, fields)
	untilRunning(t, app, who, j.ID)
	if !workerRunning(t, app, j.ID) {
		t.Fatal("the job runs but no worker holds it")
	}
	canceled := time.Now()
	res := app.Do("POST", "/v1/jobs/"+j.ID+"/cancel", who, nil)
	wantStatus(t, res, 200, "")
	for workerRunning(t, app, j.ID) {
		if time.Since(canceled) > scaled(60*time.Second) {
			t.Fatalf("the job's worker still runs %s after its cancel", time.Since(canceled))
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(canceled)
	t.Logf("%d-byte upload: worker free %s after the cancel", len(file), took.Round(time.Millisecond))
	if took > stopBound() {
		t.Fatalf("the job's worker was free %s after the cancel; the bound is %s", took, stopBound())
	}
	if j := untilEnded(t, app, who, j.ID, scaled(10*time.Second)); j.Status != "canceled" {
		t.Fatalf("job ended %s, want canceled", j.Status)
	}
}

// createJob starts an upload job on an XLSX file.
func createJob(t *testing.T, app *apptest.App, who apptest.Caller, file string, fields map[string]string) jobState {
	t.Helper()
	form := map[string]string{"schema": apptest.PeopleSchema}
	for k, v := range fields {
		form[k] = v
	}
	res := app.Request(multipartTo(t, app, "/v1/jobs", "book.xlsx", file, form), who)
	wantStatus(t, res, 202, "")
	var j jobState
	res.JSON(t, &j)
	return j
}

func getJob(t *testing.T, app *apptest.App, who apptest.Caller, id string) jobState {
	t.Helper()
	res := app.Do("GET", "/v1/jobs/"+id, who, nil)
	wantStatus(t, res, 200, "")
	var j jobState
	res.JSON(t, &j)
	return j
}

// untilRunning waits for the job to start and returns when it saw it
// running; a job that ends first fails the test (the file is too small
// to measure with).
func untilRunning(t *testing.T, app *apptest.App, who apptest.Caller, id string) time.Time {
	t.Helper()
	deadline := time.Now().Add(scaled(30 * time.Second))
	for time.Now().Before(deadline) {
		switch j := getJob(t, app, who, id); j.Status {
		case "running":
			return time.Now()
		case "queued":
			time.Sleep(20 * time.Millisecond)
		default:
			t.Fatalf("the job ended %s %+v before it was seen running", j.Status, j.Error)
		}
	}
	t.Fatal("the job did not start in 30 s")
	return time.Time{}
}

func untilEnded(t *testing.T, app *apptest.App, who apptest.Caller, id string, limit time.Duration) jobState {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if j := getJob(t, app, who, id); j.Status != "queued" && j.Status != "running" {
			return j
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s did not end in %s", id, limit)
	return jobState{}
}

// workerRunning tells whether a queue worker still runs the job: its
// queue entry is running until the worker's run returns.
func workerRunning(t *testing.T, app *apptest.App, jobID string) bool {
	t.Helper()
	var rows []struct {
		State string `bun:"state"`
		Args  string `bun:"args"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := app.DB.Bun.NewSelect().Table("river_job").Column("state", "args").Where("kind = ?", "tabnorm.run_job").Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if strings.Contains(r.Args, jobID) && r.State == "running" {
			return true
		}
	}
	return false
}
