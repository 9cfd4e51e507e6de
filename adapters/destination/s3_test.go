package destination_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/parquet-go/parquet-go"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
	"github.com/tabnorm/tabnorm/adapters/destination"
	domaindst "github.com/tabnorm/tabnorm/domain/destination"
)

func s3Server(t *testing.T) *blobtest.Server {
	t.Helper()
	srv, ok := blobtest.S3(t)
	if !ok {
		t.Skip("*** SKIP: no S3-compatible server to deliver to ***")
	}
	return srv
}

func s3Target(srv *blobtest.Server, bucket, format string) domaindst.Target {
	return target(domaindst.S3, map[string]string{"bucket": bucket, "prefix": "imports/contacts", "format": format, "region": blobtest.Region,
		"endpoint": srv.Endpoint}, map[string]string{"access_key_id": srv.AccessKey, "secret_access_key": srv.SecretKey})
}

// get reads an object straight from the server.
func get(t *testing.T, srv *blobtest.Server, bucket, key string) []byte {
	t.Helper()
	c := s3.New(s3.Options{Region: blobtest.Region, BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, "")})
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	defer func() { _ = out.Body.Close() }()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestS3_fileThenManifest_inEachFormat(t *testing.T) {
	t.Parallel()
	srv := s3Server(t)
	rows := manyRows(1000)
	for _, format := range []string{domaindst.Parquet, domaindst.CSV, domaindst.JSONL} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			bucket := srv.Bucket(t)
			w := newWriter(true)
			for range 2 { // a repeated attempt writes the same keys
				got, err := w.Deliver(context.Background(), s3Target(srv, bucket, format), shipment("job_s", []string{"job_r"}, rowsOf(rows...)))
				if err != nil || got.Rows != 1000 {
					t.Fatalf("Deliver = %+v, %v", got, err)
				}
			}
			keys := srv.Keys(t, bucket, "")
			want := []string{"imports/contacts/job_s." + format, "imports/contacts/job_s.manifest.json"}
			slices.Sort(keys)
			if !slices.Equal(keys, slices.Sorted(slices.Values(want))) {
				t.Fatalf("keys = %v, want %v", keys, want)
			}
			var m destination.Manifest
			if err := json.Unmarshal(get(t, srv, bucket, want[1]), &m); err != nil {
				t.Fatal(err)
			}
			file := get(t, srv, bucket, want[0])
			sum := sha256.Sum256(file)
			if m.Rows != 1000 || m.Bytes != int64(len(file)) || m.SHA256 != hex.EncodeToString(sum[:]) || m.Key != want[0] ||
				!slices.Equal(m.Replaces, []string{"job_r"}) || !bytes.Contains(m.Schema, []byte(`"born"`)) || m.JobID != "job_s" {
				t.Fatalf("manifest = %+v; want the file's rows, size and checksum", m)
			}
			checkFile(t, format, file, rows)
		})
	}
}

func TestS3_anAttemptStoppedMidWayLeavesNothingAndTheNextWritesOnce(t *testing.T) {
	t.Parallel()
	srv := s3Server(t)
	bucket := srv.Bucket(t)
	rows := manyRows(20000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := newWriter(true).Deliver(ctx, s3Target(srv, bucket, domaindst.JSONL), shipment("job_c", nil, cancelAfter(rows, 700_000, cancel)))
	if err == nil {
		t.Fatal("an attempt stopped mid-upload succeeded")
	}
	if keys := srv.Keys(t, bucket, ""); len(keys) != 0 {
		t.Fatalf("the stopped attempt left %v", keys)
	}
	got, err := newWriter(true).Deliver(context.Background(), s3Target(srv, bucket, domaindst.JSONL), shipment("job_c", nil, rowsOf(rows...)))
	if err != nil || got.Rows != 20000 {
		t.Fatalf("the next attempt: %+v, %v", got, err)
	}
	if file := get(t, srv, bucket, "imports/contacts/job_c.jsonl"); strings.Count(string(file), "\n") != 20000 {
		t.Fatal("the file does not hold each row once")
	}
}

func TestS3_hostileCasesEndInClearErrorsWithNothingWritten(t *testing.T) {
	t.Parallel()
	srv := s3Server(t)
	bucket := srv.Bucket(t)
	one := rowsOf(manyRows(3)...)

	_, err := newWriter(false).Deliver(context.Background(), s3Target(srv, bucket, domaindst.CSV), shipment("job_1", nil, one))
	if err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("a loopback endpoint without TABNORM_DESTINATION_ALLOW_PRIVATE: %v", err)
	}
	bad := s3Target(srv, bucket, domaindst.CSV)
	bad.Secrets["secret_access_key"] = "not-the-secret"
	_, err = newWriter(true).Deliver(context.Background(), bad, shipment("job_1", nil, one))
	if err == nil || !strings.Contains(err.Error(), "the bucket answered") || strings.Contains(err.Error(), "not-the-secret") {
		t.Fatalf("bad credentials: %v; want the bucket's refusal, without the secret", err)
	}
	if err := newWriter(true).Check(context.Background(), bad); err == nil {
		t.Fatal("Check with bad credentials passed")
	}
	missing := s3Target(srv, "tabnorm-no-such-bucket", domaindst.CSV)
	_, err = newWriter(true).Deliver(context.Background(), missing, shipment("job_1", nil, one))
	if err == nil || !strings.Contains(err.Error(), "the bucket answered") {
		t.Fatalf("a bucket that refuses writes: %v", err)
	}
	if err := newWriter(true).Check(context.Background(), s3Target(srv, bucket, domaindst.CSV)); err != nil {
		t.Fatalf("Check of a good bucket: %v", err)
	}
	if keys := srv.Keys(t, bucket, ""); len(keys) != 0 {
		t.Fatalf("refused attempts and the check left %v", keys)
	}
}

// checkFile reads a delivered file back in its format.
func checkFile(t *testing.T, format string, file []byte, rows []string) {
	t.Helper()
	switch format {
	case domaindst.Parquet:
		f, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			t.Fatalf("parquet: %v", err)
		}
		if f.NumRows() != 1000 {
			t.Fatalf("parquet: %d rows, want 1000", f.NumRows())
		}
	case domaindst.CSV:
		if lines := strings.Count(string(file), "\n"); lines != 1001 || !strings.HasPrefix(string(file), "name,age,score,active,born,note\n") {
			t.Fatalf("csv: %d lines, starts %q", lines, string(file[:40]))
		}
	case domaindst.JSONL:
		if string(file) != strings.Join(rows, "\n")+"\n" {
			t.Fatal("jsonl: not the stored rows")
		}
	}
}
