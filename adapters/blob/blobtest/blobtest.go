// Package blobtest gives tests a fresh bucket on a real S3-compatible
// server when TABNORM_TEST_S3_ENDPOINT names one (CI starts versitygw on
// loopback). Without it S3 tests skip loudly, and fail instead of skipping
// when CI=true, so CI can never pass without having run them.
package blobtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// EnvEndpoint names the S3-compatible server (http://127.0.0.1:PORT); the
// credentials are the usual AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
// which the blob store's own client reads too.
const EnvEndpoint = "TABNORM_TEST_S3_ENDPOINT"

// Region is the region the test URLs name (the local servers ignore it).
const Region = "us-east-1"

// Server is the configured S3-compatible server.
type Server struct {
	Endpoint, AccessKey, SecretKey string
	client                         *s3.Client
}

// S3 returns the configured server, or false after a loud notice (or a
// failure on CI) when there is none.
func S3(t testing.TB) (*Server, bool) {
	t.Helper()
	endpoint := os.Getenv(EnvEndpoint)
	if endpoint == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set, but CI=true: S3 tests are mandatory in CI", EnvEndpoint)
		}
		t.Logf("*** SKIPPING the S3 part of %s: set %s=http://127.0.0.1:PORT and AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY to run it ***", t.Name(), EnvEndpoint)
		return nil, false
	}
	s := &Server{Endpoint: endpoint, AccessKey: os.Getenv("AWS_ACCESS_KEY_ID"), SecretKey: os.Getenv("AWS_SECRET_ACCESS_KEY")}
	if s.AccessKey == "" || s.SecretKey == "" {
		t.Fatalf("%s is set but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not", EnvEndpoint)
	}
	s.client = s3.New(s3.Options{Region: Region, BaseEndpoint: aws.String(endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, "")})
	return s, true
}

// URL is the tabnorm blob URL of bucket on this server.
func (s *Server) URL(bucket string) string {
	q := url.Values{"region": {Region}, "endpoint": {s.Endpoint}, "use_path_style": {"true"}}
	return "s3://" + bucket + "?" + q.Encode()
}

// Bucket creates an empty bucket, removed with its objects when the test
// ends, and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tabnorm-test-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket on %s: %v", s.Endpoint, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, k := range s.Keys(t, name, "") {
			_, _ = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(name), Key: aws.String(k)})
		}
		if out, err := s.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(name)}); err == nil {
			for _, u := range out.Uploads {
				_, _ = s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(name), Key: u.Key, UploadId: u.UploadId})
			}
		}
		_, _ = s.client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(name)})
	})
	return name
}

// Keys lists the keys under prefix in bucket, read directly from the
// server (not through the store under test).
func (s *Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var keys []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("list %s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// StartUpload begins a multipart upload of key and sends one part, then
// stops: what a writer killed in the middle of a large blob leaves.
func (s *Server) StartUpload(t testing.TB, bucket, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("start an upload of %s: %v", key, err)
	}
	_, err = s.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader(strings.Repeat("x", 1024))})
	if err != nil {
		t.Fatalf("upload a part of %s: %v", key, err)
	}
}

// Uploads lists the keys of the unfinished multipart uploads under prefix
// in bucket, read directly from the server.
func (s *Server) Uploads(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := s.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatalf("list uploads of %s/%s: %v", bucket, prefix, err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key))
	}
	return keys
}

// Put stores an object directly on the server, as a process that died
// before recording it leaves it.
func (s *Server) Put(t testing.TB, bucket, key, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}
