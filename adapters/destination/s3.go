package destination

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/ports"
)

// Manifest is what {job_id}.manifest.json says of the rows file beside
// it. It is written last: a reader that finds it knows the file is
// whole.
type Manifest struct {
	JobID    string          `json:"job_id"`
	Key      string          `json:"key"`
	Format   string          `json:"format"`
	Rows     int64           `json:"rows"`
	Bytes    int64           `json:"bytes"`
	SHA256   string          `json:"sha256"`
	Replaces []string        `json:"replaces"`
	Schema   json.RawMessage `json:"schema"`
	Job      json.RawMessage `json:"job"`
	Written  string          `json:"written_at"`
}

// objectKey is where a job's file goes under the destination's prefix.
func objectKey(t destination.Target, name string) string {
	if p := t.Config["prefix"]; p != "" {
		return p + "/" + name
	}
	return name
}

// s3Client is a client of the destination's bucket that connects through
// the writer's dialer. Without credentials of its own the destination
// uses the process's (environment, shared files, instance role).
func (w *Writer) s3Client(ctx context.Context, t destination.Target) (*s3.Client, error) {
	httpClient := &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: w.dialer.DialContext, TLSHandshakeTimeout: w.cfg.Timeout,
		ResponseHeaderTimeout: 5 * w.cfg.Timeout, MaxIdleConnsPerHost: 4, ForceAttemptHTTP2: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var cfg aws.Config
	if id := t.Secrets["access_key_id"]; id != "" {
		cfg = aws.Config{Region: t.Config["region"], Credentials: credentials.NewStaticCredentialsProvider(id, t.Secrets["secret_access_key"], "")}
	} else {
		var err error
		if cfg, err = config.LoadDefaultConfig(ctx, config.WithRegion(t.Config["region"])); err != nil {
			return nil, errors.New("the service has no AWS credentials of its own: give the destination access_key_id and secret_access_key")
		}
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.HTTPClient = httpClient
		o.RetryMaxAttempts = 3
		if e := t.Config["endpoint"]; e != "" {
			o.BaseEndpoint = aws.String(e)
			o.UsePathStyle = true
		}
	}), nil
}

// s3Reason is an S3 error as a sentence without credentials.
func s3Reason(err error) string {
	var api smithy.APIError
	switch {
	case errors.As(err, &api):
		return "the bucket answered " + api.ErrorCode() + ": " + api.ErrorMessage()
	case errors.Is(err, errRefused):
		return errRefused.Error()
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return "timed out or canceled"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// deliverS3 writes the rows file, whole, under {prefix}/{job_id}.{format}
// and then {job_id}.manifest.json. An attempt made again writes the same
// keys: the last whole file and its manifest win.
func (w *Writer) deliverS3(ctx context.Context, t destination.Target, s ports.Shipment, cols []export.Column) (ports.Shipped, error) {
	client, err := w.s3Client(ctx, t)
	if err != nil {
		return ports.Shipped{}, err
	}
	f, err := os.CreateTemp(w.cfg.TempDir, "tabnorm-delivery-*")
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("could not make the file to upload: %w", err)
	}
	defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
	format := t.Config["format"]
	count := newCounter(f)
	rows, err := writeFile(ctx, count, s, cols, format)
	if err != nil {
		return ports.Shipped{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ports.Shipped{}, err
	}
	key := objectKey(t, s.JobID+"."+format)
	bucket := aws.String(t.Config["bucket"])
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String(key), Body: f, ContentLength: aws.Int64(count.n),
		ContentType: aws.String(contentType(format)), Metadata: map[string]string{"tabnorm-job-id": s.JobID, "tabnorm-sha256": count.sum()}})
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("could not write %s: %s", key, s3Reason(err))
	}
	m := Manifest{JobID: s.JobID, Key: key, Format: format, Rows: rows, Bytes: count.n, SHA256: count.sum(), Replaces: s.Replaces, Schema: s.Schema,
		Job: s.Job, Written: time.Now().UTC().Format(time.RFC3339)}
	if m.Replaces == nil {
		m.Replaces = []string{}
	}
	body, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return ports.Shipped{}, err
	}
	mkey := objectKey(t, s.JobID+".manifest.json")
	_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String(mkey), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String("application/json")})
	if err != nil {
		return ports.Shipped{}, fmt.Errorf("could not write %s: %s", mkey, s3Reason(err))
	}
	return ports.Shipped{Rows: rows, Bytes: count.n, Checksum: count.sum()}, nil
}

func contentType(format string) string {
	switch format {
	case destination.CSV:
		return "text/csv; charset=utf-8"
	case destination.JSONL:
		return "application/jsonl"
	}
	return "application/vnd.apache.parquet"
}

// writeFile writes the rows in the format and returns how many there were.
func writeFile(ctx context.Context, out io.Writer, s ports.Shipment, cols []export.Column, format string) (int64, error) {
	r, err := s.Rows(ctx)
	if err != nil {
		return 0, fmt.Errorf("could not read the job's rows: %w", err)
	}
	defer func() { _ = r.Close() }()
	switch format {
	case destination.JSONL:
		lines := &lineCount{}
		_, err := io.Copy(out, io.TeeReader(r, lines))
		return lines.rows(), err
	case destination.CSV:
		return writeCSV(out, r, cols)
	}
	lines := &lineCount{}
	plans, err := export.PlanParquet(io.TeeReader(r, lines), cols)
	if err != nil {
		return 0, fmt.Errorf("could not read the job's rows: %w", err)
	}
	again, err := s.Rows(ctx)
	if err != nil {
		return 0, fmt.Errorf("could not read the job's rows: %w", err)
	}
	defer func() { _ = again.Close() }()
	if err := export.WriteRowsParquet(out, again, cols, plans, export.ParquetOptions{}); err != nil {
		return 0, fmt.Errorf("could not write Parquet: %w", err)
	}
	return lines.rows(), nil
}

// writeCSV writes a header and the rows; a null is an empty cell.
func writeCSV(out io.Writer, r io.Reader, cols []export.Column) (int64, error) {
	cw := csv.NewWriter(out)
	rr := newRowReader(r, cols)
	if err := cw.Write(rr.names); err != nil {
		return 0, err
	}
	var n int64
	for {
		more, err := rr.next()
		if err != nil {
			return n, err
		}
		if !more {
			break
		}
		if err := cw.Write(rr.texts); err != nil {
			return n, err
		}
		n++
	}
	cw.Flush()
	return n, cw.Error()
}

// lineCount counts the lines of stored rows (one row a line).
type lineCount struct {
	n    int64
	last byte
}

func (c *lineCount) Write(p []byte) (int, error) {
	c.n += int64(bytes.Count(p, []byte{'\n'}))
	if len(p) > 0 {
		c.last = p[len(p)-1]
	}
	return len(p), nil
}

func (c *lineCount) rows() int64 {
	if c.last != 0 && c.last != '\n' {
		return c.n + 1
	}
	return c.n
}

// checkS3 writes a small object under the prefix and deletes it.
func (w *Writer) checkS3(ctx context.Context, t destination.Target) error {
	client, err := w.s3Client(ctx, t)
	if err != nil {
		return err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	key := objectKey(t, ".tabnorm-check-"+hex.EncodeToString(b[:]))
	bucket := aws.String(t.Config["bucket"])
	body := []byte("tabnorm can write here\n")
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String(key), Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body)))}); err != nil {
		return fmt.Errorf("could not write to the bucket: %s", s3Reason(err))
	}
	if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bucket, Key: aws.String(key)}); err != nil {
		return fmt.Errorf("wrote to the bucket but could not delete %s: %s", key, s3Reason(err))
	}
	return nil
}
