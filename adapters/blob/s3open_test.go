package blob

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/tabnorm/tabnorm/adapters/blob/blobtest"
)

// TestOpen_s3LogsThroughTheServiceLogger: the S3 client's own log lines
// (the SDK's warnings about a server's answers) go through the service's
// logger, as structured lines at their level, not as plain text on stderr
// in the middle of JSON logs; and the store works with that client.
func TestOpen_s3LogsThroughTheServiceLogger(t *testing.T) {
	t.Parallel()
	srv, ok := blobtest.S3(t)
	if !ok {
		return
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := Open(context.Background(), srv.URL(srv.Bucket(t)), WithLogger(log))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "org/o1/x", "hello")
	var client *s3.Client
	if !s.bucket.As(&client) {
		t.Fatal("the S3 store has no S3 client")
	}
	client.Options().Logger.Logf(logging.Warn, "Response has no supported checksum. Not validating response payload.")
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("the SDK's line is not one JSON log line: %q (%v)", buf.String(), err)
	}
	if line["level"] != "WARN" || line["component"] != "aws-sdk" || !strings.Contains(line["msg"].(string), "no supported checksum") {
		t.Fatalf("the SDK's warning logged as %v", line)
	}
}

// TestOpen_s3BadParameters: the URL parameters the S3 opener reads itself
// are checked as gocloud checks them.
func TestOpen_s3BadParameters(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"s3://b?region=us-east-1&use_path_style=maybe",
		"s3://b?region=us-east-1&ssetype=rot13",
		"s3://b?region=us-east-1&nonsense=1",
	} {
		if _, err := Open(context.Background(), raw); err == nil {
			t.Errorf("Open(%q) succeeded", raw)
		}
	}
}
