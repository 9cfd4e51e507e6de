package blob

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/logging"
	gcaws "gocloud.dev/aws"
	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// Option configures Open.
type Option func(*options)

type options struct{ log *slog.Logger }

// WithLogger sends what the storage client logs (the AWS SDK's warnings
// about an S3-compatible server, its retries) through log, as the rest of
// the service's lines, instead of the SDK's own plain lines on stderr.
func WithLogger(log *slog.Logger) Option { return func(o *options) { o.log = log } }

// openS3 opens an s3:// URL as gocloud's s3blob does, with the same URL
// parameters, and with the SDK's logger set to log.
func openS3(ctx context.Context, u *url.URL, log *slog.Logger) (*gcblob.Bucket, error) {
	q := u.Query()
	var bucketOpts s3blob.Options
	var clientOpts []func(*s3.Options)
	if v := pop(q, "ssetype"); v != "" {
		sse, err := sseType(v)
		if err != nil {
			return nil, err
		}
		bucketOpts.EncryptionType = sse
	}
	bucketOpts.KMSEncryptionID = pop(q, "kmskeyid")
	for _, p := range []struct {
		key string
		set func(*s3.Options, bool)
	}{
		{"accelerate", func(o *s3.Options, v bool) { o.UseAccelerate = v }},
		{"disable_https", func(o *s3.Options, v bool) { o.EndpointOptions.DisableHTTPS = v }},
		{"use_path_style", func(o *s3.Options, v bool) { o.UsePathStyle = v }},
		{"s3ForcePathStyle", func(o *s3.Options, v bool) { o.UsePathStyle = v }},
	} {
		raw := pop(q, p.key)
		if raw == "" {
			continue
		}
		v, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, fmt.Errorf("invalid value for %q: %w", p.key, err)
		}
		clientOpts = append(clientOpts, func(o *s3.Options) { p.set(o, v) })
	}
	q.Del("awssdk")
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", u.Host, err)
	}
	cfg.Logger = sdkLogger{log: log.With("component", "aws-sdk")}
	bucketOpts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, clientOpts...), u.Host, &bucketOpts)
}

func pop(q url.Values, key string) string {
	v := q.Get(key)
	q.Del(key)
	return v
}

func sseType(v string) (types.ServerSideEncryption, error) {
	for _, t := range types.ServerSideEncryptionAes256.Values() {
		if strings.EqualFold(string(t), v) {
			return t, nil
		}
	}
	return "", fmt.Errorf("%q is not a valid value for %q", v, "ssetype")
}

// sdkLogger is the AWS SDK's logger writing to slog: its WARN lines as
// warnings, its DEBUG lines as debug, anything else as info.
type sdkLogger struct{ log *slog.Logger }

func (l sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	level := slog.LevelInfo
	switch c {
	case logging.Warn:
		level = slog.LevelWarn
	case logging.Debug:
		level = slog.LevelDebug
	}
	l.log.Log(context.Background(), level, fmt.Sprintf(format, v...))
}
