// Package destination holds the rules of an organization's destinations:
// the places (an S3 bucket, a PostgreSQL table, an HTTP endpoint) a
// succeeded job's rows are pushed to, how their settings are checked, and
// the life of a delivery of one job to one destination (delivery.go).
//
// A destination's settings split in two: Config, what may be shown back
// (a bucket, a table, a host), and secrets (a password, a key, a signing
// secret), which the application seals before they are stored and which
// are never shown again. Every rule that depends on time takes it as an
// argument.
package destination

import (
	"maps"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/webhook"
)

// The types of destination.
const (
	S3       = "s3"
	Postgres = "postgres"
	HTTP     = "http"
)

// Types lists every type.
var Types = []string{S3, Postgres, HTTP}

// The formats an S3 destination writes.
const (
	Parquet = "parquet"
	CSV     = "csv"
	JSONL   = "jsonl"
)

// Destination is where an organization wants its jobs' rows delivered.
type Destination struct {
	ID     string
	OrgID  string
	Name   string
	Type   string
	Config map[string]string // the settings that may be shown
	// Sealed is the destination's secrets (a JSON object) as the Sealer
	// sealed them, bound to the organization and the destination's id.
	Sealed    []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Associated is the data a destination's secrets are sealed with: a
// sealed value copied into another destination does not open.
func (d Destination) Associated() []byte { return []byte(d.OrgID + "/" + d.ID) }

// Target is a destination with its secrets opened: what a writer needs.
type Target struct {
	Destination
	Secrets map[string]string
}

// Settings are a destination's settings as the client sent them.
type Settings struct {
	Type   string
	Config map[string]any
}

// Parsed is a destination's checked settings: those shown, and the
// secrets to seal.
type Parsed struct {
	Config  map[string]string
	Secrets map[string]string
}

// ParseName checks a destination's name.
func ParseName(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 100 {
		return "", fieldError("name", "must be 1 to 100 characters", "A destination needs a name of 1 to 100 characters.")
	}
	return s, nil
}

// ParseType checks a destination's type.
func ParseType(s string) (string, error) {
	if !slices.Contains(Types, s) {
		return "", fieldError("type", "must be s3, postgres or http", "The destination type must be s3, postgres or http.")
	}
	return s, nil
}

// Parse checks the settings of a destination of type typ. A private,
// loopback or link-local address (by its literal IP, or localhost) is
// refused unless allowPrivate; names are checked again, against the
// address they resolve to, when the writers connect.
func Parse(typ string, cfg map[string]any, allowPrivate bool) (Parsed, error) {
	str, err := texts(cfg)
	if err != nil {
		return Parsed{}, err
	}
	switch typ {
	case Postgres:
		return parsePostgres(str, allowPrivate)
	case S3:
		return parseS3(str, allowPrivate)
	case HTTP:
		return parseHTTP(str, allowPrivate)
	}
	return Parsed{}, fieldError("type", "must be s3, postgres or http", "The destination type must be s3, postgres or http.")
}

// texts reads a config object whose values are all strings.
func texts(cfg map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(cfg))
	for k, v := range cfg {
		s, ok := v.(string)
		if !ok {
			return nil, fieldError("config."+k, "must be a string", "Every setting of a destination's config is a string.")
		}
		out[k] = strings.TrimSpace(s)
	}
	return out, nil
}

// only refuses settings a type does not know.
func only(cfg map[string]string, known ...string) error {
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		if !slices.Contains(known, k) {
			return fieldError("config."+k, "unknown setting", "Unknown setting "+k+"; this type takes "+strings.Join(known, ", ")+".")
		}
	}
	return nil
}

// identifier is a plain SQL identifier: it needs no quoting in any
// database, so it cannot carry SQL.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// ValidTable reports whether name is a plain identifier.
func ValidTable(name string) bool { return identifier.MatchString(name) }

func parsePostgres(cfg map[string]string, allowPrivate bool) (Parsed, error) {
	if err := only(cfg, "url", "table", "schema"); err != nil {
		return Parsed{}, err
	}
	if !ValidTable(cfg["table"]) {
		return Parsed{}, fieldError("config.table", "must be a plain identifier: a letter or _, then letters, digits or _, at most 63",
			"The table must be a plain identifier (letters, digits and _, not starting with a digit, at most 63 characters).")
	}
	if s := cfg["schema"]; s != "" && !ValidTable(s) {
		return Parsed{}, fieldError("config.schema", "must be a plain identifier", "The schema must be a plain identifier.")
	}
	u, err := url.Parse(cfg["url"])
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Hostname() == "" {
		return Parsed{}, fieldError("config.url", "must be a postgres:// URL with a host", "The connection URL must be a postgres:// URL naming a host.")
	}
	if err := checkHost("config.url", u.Hostname(), allowPrivate); err != nil {
		return Parsed{}, err
	}
	shown := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.User != nil {
		shown.User = url.User(u.User.Username())
	}
	out := Parsed{Config: map[string]string{"table": cfg["table"], "host": shown.String()}, Secrets: map[string]string{"url": u.String()}}
	if s := cfg["schema"]; s != "" {
		out.Config["schema"] = s
	}
	return out, nil
}

// bucketName is an S3 bucket name (lower case, digits, dots and hyphens).
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]$`)

func parseS3(cfg map[string]string, allowPrivate bool) (Parsed, error) {
	if err := only(cfg, "bucket", "prefix", "region", "endpoint", "format", "access_key_id", "secret_access_key"); err != nil {
		return Parsed{}, err
	}
	if !bucketName.MatchString(cfg["bucket"]) {
		return Parsed{}, fieldError("config.bucket", "must be an S3 bucket name", "The bucket must be an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens).")
	}
	prefix := strings.Trim(cfg["prefix"], "/")
	if strings.Contains(prefix, "..") || strings.Contains(prefix, "//") || len(prefix) > 512 {
		return Parsed{}, fieldError("config.prefix", "must be a plain key prefix", "The prefix must be a key prefix without .. or empty parts.")
	}
	format := cfg["format"]
	switch format {
	case "":
		format = Parquet
	case Parquet, CSV, JSONL:
	default:
		return Parsed{}, fieldError("config.format", "must be parquet, csv or jsonl", "The format must be parquet, csv or jsonl.")
	}
	shown := map[string]string{"bucket": cfg["bucket"], "prefix": prefix, "format": format, "region": cfg["region"]}
	if shown["region"] == "" {
		shown["region"] = "us-east-1"
	}
	if e := cfg["endpoint"]; e != "" {
		u, err := checkURL("config.endpoint", e, allowPrivate)
		if err != nil {
			return Parsed{}, err
		}
		shown["endpoint"] = u
	}
	secrets := map[string]string{}
	switch id, key := cfg["access_key_id"], cfg["secret_access_key"]; {
	case id != "" && key != "":
		secrets["access_key_id"], secrets["secret_access_key"] = id, key
		shown["access_key_id"] = id
	case id != "" || key != "":
		return Parsed{}, fieldError("config.secret_access_key", "needs access_key_id with it", "Give both access_key_id and secret_access_key, or neither (the service's own credentials).")
	}
	return Parsed{Config: shown, Secrets: secrets}, nil
}

func parseHTTP(cfg map[string]string, allowPrivate bool) (Parsed, error) {
	if err := only(cfg, "url", "signing_secret"); err != nil {
		return Parsed{}, err
	}
	u, err := checkURL("config.url", cfg["url"], allowPrivate)
	if err != nil {
		return Parsed{}, err
	}
	secret := cfg["signing_secret"]
	switch {
	case secret == "":
		secret = webhook.NewSecret()
	case !strings.HasPrefix(secret, "whsec_") || len(secret) < 30:
		return Parsed{}, fieldError("config.signing_secret", "must be a whsec_ secret", "The signing secret must be a Standard Webhooks secret (whsec_ and base64).")
	}
	return Parsed{Config: map[string]string{"url": u}, Secrets: map[string]string{"signing_secret": secret}}, nil
}

// checkURL checks an http(s) address: https unless private addresses are
// allowed, no credentials, no private literal address.
func checkURL(field, raw string, allowPrivate bool) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || u.Opaque != "" || len(raw) > 2000 {
		return "", fieldError(field, "must be an absolute URL", "The "+field+" must be an absolute URL.")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !allowPrivate) {
		return "", fieldError(field, "must use https", "The "+field+" must use https.")
	}
	if u.User != nil || u.Fragment != "" {
		return "", fieldError(field, "must not carry credentials or a fragment", "The "+field+" must not carry credentials or a fragment.")
	}
	if err := checkHost(field, u.Hostname(), allowPrivate); err != nil {
		return "", err
	}
	return u.String(), nil
}

// checkHost refuses a literal private address or localhost unless
// allowed.
func checkHost(field, host string, allowPrivate bool) error {
	if allowPrivate {
		return nil
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err == nil && webhook.Refused(ip) || strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return fieldError(field, "is a private, loopback or link-local address",
			"The "+field+" points to a private, loopback or link-local address (the operator may allow them with TABNORM_DESTINATION_ALLOW_PRIVATE).")
	}
	return nil
}

// CanManage allows organization admins on a cookie session and API keys
// (keys are organization-wide); members get nothing of destinations,
// whose settings name the organization's systems.
func CanManage(p identity.Principal) error {
	if p.Method == identity.ByAPIKey || p.Role == identity.Admin {
		return nil
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only organization admins and API keys can use destinations.")
}

func fieldError(field, msg, message string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: message,
		Fields: []domain.FieldError{{Field: field, Message: msg}}}
}
