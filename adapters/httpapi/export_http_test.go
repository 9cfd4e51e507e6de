package httpapi_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
	"github.com/tabnorm/tabnorm/test/testtime"
)

func openWorkbook(t *testing.T, res apptest.Response) *excelize.File {
	t.Helper()
	expect(t, res, 200, "")
	f, err := excelize.OpenReader(strings.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func sheetText(t *testing.T, f *excelize.File, sheet string) string {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, "|")
	}
	return strings.Join(lines, "\n")
}

// TestExport_downloadsAndTheFixedWorkbook: a job's rows as XLSX and
// Parquet read back to its rows; its errors as the annotated workbook,
// fixed and uploaded again, run as the file it was, now without errors.
func TestExport_downloadsAndTheFixedWorkbook(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			org := app.Org("Acme", identity.Normalize)
			key := apptest.Caller{Key: app.Key(org)}
			id := runUpload(t, app, key, "people.csv", peopleCSV)
			base := "/v1/jobs/" + id
			checkRowDownloads(t, app, key, base, id)
			kept := checkKeptDownloads(t, app, key, base, org.ID, id)
			annotated := checkAnnotated(t, app, key, base)
			// The kept downloads go with the job.
			expect(t, app.Do("DELETE", base, key, nil), 204, "")
			for _, k := range kept {
				if _, err := os.Stat(k); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s after the job was deleted: %v", k, err)
				}
			}

			// Fix the marked cells and upload the workbook again.
			for cell, v := range map[string]string{"C3": "bob@x.io", "B5": "4"} {
				if err := annotated.SetCellValue("Rows", cell, v); err != nil {
					t.Fatal(err)
				}
			}
			var fixed bytes.Buffer
			if err := annotated.Write(&fixed); err != nil {
				t.Fatal(err)
			}
			id = runUpload(t, app, key, "fixed.xlsx", fixed.String())
			done := waitJob(t, app, key, id)
			if done.Result.RowCount != 4 || done.Result.RejectedCount != 0 || len(done.Mapping) != 3 {
				t.Fatalf("the fixed workbook's job: %+v", done)
			}
			csv := app.Do("GET", "/v1/jobs/"+id+"/rows.csv", key, nil).Body
			if csv != "id,email,joined\n1,ann@x.io,2024-01-31\n2,bob@x.io,2024-02-01\n3,cy@x.io,2024-03-04\n4,dup@x.io,2024-03-05\n" {
				t.Fatalf("rows of the fixed workbook:\n%s", csv)
			}
		})
	}
}

// runUpload runs a job of people on a file and returns its id once it succeeded.
// checkKeptDownloads: a generated download is built once and kept under
// the job's own storage prefix; a later download of it is the same bytes
// and tag, served from there.
func checkKeptDownloads(t *testing.T, app *apptest.App, key apptest.Caller, base, orgID, id string) []string {
	t.Helper()
	dir := filepath.Join(strings.TrimPrefix(app.Config.BlobURL, "file://"), "org", orgID, "jobs", id, "exports")
	var kept []string
	deadline := testtime.Deadline(10 * time.Second) // kept while the first download is sent
	for len(kept) < 2 && time.Now().Before(deadline) {
		kept, _ = filepath.Glob(filepath.Join(dir, "*"))
		time.Sleep(10 * time.Millisecond)
	}
	if len(kept) != 2 || strings.HasSuffix(kept[0], "rows.xlsx") == strings.HasSuffix(kept[1], "rows.xlsx") ||
		!strings.HasSuffix(kept[0], "rows.parquet") && !strings.HasSuffix(kept[1], "rows.parquet") {
		t.Fatalf("kept downloads %v, want rows.xlsx and rows.parquet", kept)
	}
	first := app.Do("GET", base+"/rows.xlsx", key, nil)
	for _, k := range kept { // served from storage from now on: a file changed there is what a download gets
		if strings.HasSuffix(k, "rows.xlsx") {
			stored, err := os.ReadFile(k)
			if err != nil || string(stored) != first.Body {
				t.Fatalf("the kept workbook differs from the download (%d vs %d bytes): %v", len(stored), len(first.Body), err)
			}
			if err := os.WriteFile(k, append(stored, "kept"...), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	again := app.Do("GET", base+"/rows.xlsx", key, nil)
	if again.Body != first.Body+"kept" || again.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Fatalf("the second download was built again (%d bytes, tag %q vs %q)", len(again.Body), again.Header.Get("ETag"), first.Header.Get("ETag"))
	}
	ranged := app.Do("GET", base+"/rows.xlsx", key, nil, "Range", "bytes=0-3")
	expect(t, ranged, 206, "")
	if ranged.Body != first.Body[:4] {
		t.Fatalf("a range of the kept download: %q", ranged.Body)
	}
	return kept
}

func runUpload(t *testing.T, app *apptest.App, key apptest.Caller, name, content string) string {
	t.Helper()
	res := app.Request(upload(t, app, name, content, map[string]string{"schema": peopleSchema}), key)
	expect(t, res, 202, "")
	var j jobView
	res.JSON(t, &j)
	if done := waitJob(t, app, key, j.ID); done.Status != "succeeded" {
		t.Fatalf("job %+v", done)
	}
	return j.ID
}

func checkRowDownloads(t *testing.T, app *apptest.App, key apptest.Caller, base, id string) {
	t.Helper()
	rows := openWorkbook(t, app.Do("GET", base+"/rows?format=xlsx", key, nil))
	if got := sheetText(t, rows, "Rows"); got != "id|email|joined\n1|ann@x.io|2024-01-31\n3|cy@x.io|2024-03-04" {
		t.Fatalf("rows.xlsx:\n%s", got)
	}
	pq := app.Do("GET", base+"/rows.parquet", key, nil)
	expect(t, pq, 200, "")
	if cd := pq.Header.Get("Content-Disposition"); cd != `attachment; filename="`+id+`-rows.parquet"` {
		t.Fatalf("Content-Disposition %q", cd)
	}
	pf, err := parquet.OpenFile(strings.NewReader(pq.Body), int64(len(pq.Body)))
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRows() != 2 || len(pf.Schema().Fields()) != 3 || pf.Schema().Fields()[2].Type().LogicalType().String() != "DATE" {
		t.Fatalf("rows.parquet: %d rows, %v", pf.NumRows(), pf.Schema())
	}
}

// checkAnnotated checks the errors workbook, all rows and rejected ones,
// and returns the first.
func checkAnnotated(t *testing.T, app *apptest.App, key apptest.Caller, base string) *excelize.File {
	t.Helper()
	annotated := openWorkbook(t, app.Do("GET", base+"/errors.xlsx", key, nil))
	want := "tabnorm row|ID|E-mail|Joined\n1|1|ANN@x.io|31/01/2024\n2|2|bob@|01/02/2024\n3|3|cy@x.io|2024-03-04\n4|1|dup@x.io|2024-03-05"
	if got := sheetText(t, annotated, "Rows"); got != want {
		t.Fatalf("errors.xlsx:\n%s\nwant\n%s", got, want)
	}
	comments, err := annotated.GetComments("Rows")
	if err != nil || len(comments) < 2 {
		t.Fatalf("comments %+v %v", comments, err)
	}
	rejected := openWorkbook(t, app.Do("GET", base+"/errors?format=xlsx&rows=rejected", key, nil))
	if got := sheetText(t, rejected, "Rows"); got != "tabnorm row|ID|E-mail|Joined\n2|2|bob@|01/02/2024\n4|1|dup@x.io|2024-03-05" {
		t.Fatalf("rejected rows:\n%s", got)
	}
	return annotated
}
