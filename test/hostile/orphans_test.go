package hostile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/bootstrap"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// liveRecords makes what the sweep must never take, however old: a
// finished upload job with its results, and a connect library file.
func liveRecords(t *testing.T, app *apptest.App) (orgID, jobID, fileID string, who apptest.Caller) {
	t.Helper()
	org := app.Org("Acme", identity.Normalize, identity.Connect)
	who = apptest.Caller{Key: app.Key(org)}
	j := startUploadJob(t, app, who)
	if done := untilDone(t, app, who, "/v1/jobs/"+j.ID); done.Status != "succeeded" {
		t.Fatalf("the live job ended %s", done.Status)
	}
	res := app.Request(multipartTo(t, app, "/v1/connect/files", "people.csv", peopleCSV, nil), who)
	wantStatus(t, res, 201, "")
	var f struct{ ID string }
	res.JSON(t, &f)
	return org.ID, j.ID, f.ID, who
}

// TestOrphans_localStore: what crashes leave in a local store — the
// partial blob of an upload cut by a crash, a killed attempt's partial
// results beside the finished ones, uploads whose job or library file was
// never recorded, empty job folders — is reclaimed once older than the
// grace period, on both databases. The same leftovers written just now,
// and every file of a live job or library file however old, stay.
func TestOrphans_localStore(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			orphansLocal(t, target)
		})
	}
}

func orphansLocal(t *testing.T, target sqltest.Target) {
	app := apptest.Start(t, target)
	orgID, jobID, fileID, who := liveRecords(t, app)
	d := localDir{t: t, dir: strings.TrimPrefix(app.Config.BlobURL, "file://")}
	now := time.Now()
	old := now.Add(-48 * time.Hour)
	jobs, files := "org/"+orgID+"/jobs/", "org/"+orgID+"/files/"
	live := []string{jobs + jobID + "/source", jobs + jobID + "/rows.jsonl", jobs + jobID + "/issues.jsonl", files + fileID}
	for _, k := range live {
		d.age(k, old)
	}
	gone := []string{
		jobs + jobID + "/rows.jsonl.18b2c3d4e5f60001.tmp",             // a killed attempt's results
		jobs + "job_crashed/source.18b2c3d4e5f60002.tmp",              // an upload cut by a crash
		jobs + "job_unmade/source",                                    // an upload whose job was never created
		files + "file_unmade",                                         // a library upload never recorded
		files + "file_crashed.18b2c3d4e5f60003.tmp",                   // a library upload cut by a crash
		jobs + "job_crashed", jobs + "job_unmade", jobs + "job_empty", // their folders, and an empty one
	}
	kept := []string{
		jobs + "job_inflight/source.18b2c3d4e5f60004.tmp", // an upload arriving now
		jobs + "job_fresh/source",                         // an upload whose job is being created
		files + "file_fresh",
		jobs + "job_newempty",
	}
	for _, k := range gone[:5] {
		d.write(k, old)
	}
	d.folder(jobs+"job_empty", old)
	d.age(jobs+"job_crashed", old)
	d.age(jobs+"job_unmade", old)
	for _, k := range kept[:3] {
		d.write(k, now)
	}
	d.folder(jobs+"job_newempty", now)

	n, err := app.Orphans.Purge(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// 2 unrecorded blobs (their folders go with them), 3 temporary files,
	// 2 folders left empty.
	if n != 7 {
		t.Errorf("Purge removed %d, want 7", n)
	}
	for _, k := range gone {
		if d.exists(k) {
			t.Errorf("%s is still there", k)
		}
	}
	for _, k := range slices.Concat(live, kept) {
		if !d.exists(k) {
			t.Errorf("%s was taken", k)
		}
	}
	wantStatus(t, app.Do("GET", "/v1/jobs/"+jobID+"/rows", who, nil), 200, "")
}

// localDir writes and ages files of a local blob store by key.
type localDir struct {
	t   *testing.T
	dir string
}

func (d localDir) path(key string) string { return filepath.Join(d.dir, filepath.FromSlash(key)) }

func (d localDir) exists(key string) bool {
	_, err := os.Stat(d.path(key))
	return err == nil
}

func (d localDir) age(key string, at time.Time) {
	d.t.Helper()
	if err := os.Chtimes(d.path(key), at, at); err != nil {
		d.t.Fatal(err)
	}
}

func (d localDir) write(key string, at time.Time) {
	d.t.Helper()
	if err := os.MkdirAll(filepath.Dir(d.path(key)), 0o750); err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(d.path(key), []byte("1,ann@x.io,31/01/2024\n"), 0o600); err != nil {
		d.t.Fatal(err)
	}
	d.age(key, at)
}

func (d localDir) folder(key string, at time.Time) {
	d.t.Helper()
	if err := os.MkdirAll(d.path(key), 0o750); err != nil {
		d.t.Fatal(err)
	}
	d.age(key, at)
}

// TestOrphans_s3Store: in S3, objects no job or library file owns and
// uploads that never completed are reclaimed once older than the grace
// period; while they are newer, and always for a live job's objects,
// nothing is.
func TestOrphans_s3Store(t *testing.T) {
	t.Parallel()
	srv, ok := blobtest.S3(t)
	if !ok {
		return
	}
	bucket := srv.Bucket(t)
	app := apptest.Start(t, sqltest.SQLite(t), func(c *bootstrap.Config) { c.BlobURL = srv.URL(bucket) })
	orgID, jobID, fileID, who := liveRecords(t, app)
	jobs, files := "org/"+orgID+"/jobs/", "org/"+orgID+"/files/"
	live := []string{files + fileID, jobs + jobID + "/issues.jsonl", jobs + jobID + "/rows.jsonl", jobs + jobID + "/source"}
	srv.Put(t, bucket, jobs+"job_unmade/source", "1,ann@x.io\n")
	srv.Put(t, bucket, files+"file_unmade", "1,ann@x.io\n")
	srv.StartUpload(t, bucket, jobs+"job_crashed/source") // an upload cut by a crash
	srv.StartUpload(t, bucket, jobs+jobID+"/rows.jsonl")  // a killed attempt's results

	ctx := context.Background()
	if n, err := app.Orphans.Purge(ctx); err != nil || n != 0 {
		t.Fatalf("within the grace period Purge removed %d, %v", n, err)
	}
	if got := srv.Keys(t, bucket, "org/"); len(got) != 6 || len(srv.Uploads(t, bucket, "org/")) != 2 {
		t.Fatalf("within the grace period: %v", got)
	}

	app.Clock.Advance(25 * time.Hour)
	if n, err := app.Orphans.Purge(ctx); err != nil || n != 4 {
		t.Fatalf("Purge = %d, %v; want 2 objects and 2 uploads", n, err)
	}
	got := srv.Keys(t, bucket, "org/")
	slices.Sort(live)
	if !slices.Equal(got, live) {
		t.Fatalf("objects left %v, want %v", got, live)
	}
	if ups := srv.Uploads(t, bucket, "org/"); len(ups) != 0 {
		t.Fatalf("unfinished uploads left: %v", ups)
	}
	wantStatus(t, app.Do("GET", "/v1/jobs/"+jobID+"/rows", who, nil), 200, "")
}
