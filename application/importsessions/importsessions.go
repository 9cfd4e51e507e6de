// Package importsessions mints, lists and revokes import sessions, and
// authenticates their client secrets: the credential a customer's end
// users hold in the embedded importer, narrowed to the session's jobs.
package importsessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/application/destinations"
	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/application/webhooks"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/webhook"
	"github.com/tabnorm/tabnorm/ports"
)

// Service is the import session use cases.
type Service struct {
	sessions ports.ImportSessions
	schemas  ports.Schemas
	jobs     ports.Jobs
	tx       ports.Transactor
	hooks    *webhooks.Fanout
	pushes   *destinations.Fanout
	clock    ports.Clock
	texts    TextKeys
	audit    ports.AuditLog
}

// TextKeys reports whether the importer has a message of that key, which
// a session's texts may then override. The importer's message files
// decide (adapters/importer).
type TextKeys func(key string) bool

// NewService returns the import sessions service; minting and revoking a
// session are audited in their transactions.
func NewService(sessions ports.ImportSessions, schemas ports.Schemas, jobs ports.Jobs, tx ports.Transactor, hooks *webhooks.Fanout,
	pushes *destinations.Fanout, clock ports.Clock, texts TextKeys, log ports.AuditLog) *Service {
	return &Service{sessions: sessions, schemas: schemas, jobs: jobs, tx: tx, hooks: hooks, pushes: pushes, clock: clock, texts: texts, audit: log}
}

// Input is a new session as the customer's backend sent it.
type Input struct {
	SchemaID       string
	Schema         []byte // JSON, or nil
	Options        []byte // JSON object, or nil
	AllowedOrigins []string
	ExpiresIn      int64 // seconds; 0 for an hour
	Metadata       []byte
	MaxJobs        int
	Locale         string
	Theme          importsession.Theme
	Texts          map[string]string
	SubmitPolicy   importsession.SubmitPolicy
}

// canMint allows an API key or an organization admin's session: the
// session's secret acts for the organization, as a key does.
func canMint(p identity.Principal) error {
	switch {
	case p.Method == identity.ByAPIKey:
		return nil
	case p.Method == identity.BySession && p.Role == identity.Admin:
		return nil
	}
	return domain.Errorf(domain.ErrForbidden, domain.CodeInsufficientPermissions, "Only API keys and organization admins can manage import sessions.")
}

// Create mints a session and returns it with its client secret, which
// exists only in this return value.
func (s *Service) Create(ctx context.Context, p identity.Principal, in Input) (importsession.Session, string, error) {
	if err := canMint(p); err != nil {
		return importsession.Session{}, "", err
	}
	ses, err := s.settings(ctx, p.OrgID, in)
	if err != nil {
		return importsession.Session{}, "", err
	}
	secret := importsession.GenerateSecret()
	now := s.clock.Now().UTC()
	life, _ := importsession.ExpiresIn(in.ExpiresIn) // checked by settings
	ses.ID, ses.OrgID, ses.Hash, ses.CreatedAt, ses.ExpiresAt = id.New(id.Import), p.OrgID, importsession.HashOf(secret), now, now.Add(life)
	ses.CreatedBy = p.KeyID
	if ses.CreatedBy == "" {
		ses.CreatedBy = p.UserID
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.sessions.Create(ctx, ses); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "import_session.create", ses.ID, now)
	})
	if err != nil {
		return importsession.Session{}, "", fmt.Errorf("create import session: %w", err)
	}
	return ses, secret, nil
}

// settings checks everything a session is made of but its identity.
func (s *Service) settings(ctx context.Context, orgID string, in Input) (importsession.Session, error) {
	var ses importsession.Session
	var err error
	if ses.AllowedOrigins, err = importsession.ParseOrigins(in.AllowedOrigins); err != nil {
		return ses, err
	}
	if _, err = importsession.ExpiresIn(in.ExpiresIn); err != nil {
		return ses, err
	}
	if ses.MaxJobs, err = importsession.ParseMaxJobs(in.MaxJobs); err != nil {
		return ses, err
	}
	if ses.Locale, err = importsession.ParseLocale(in.Locale); err != nil {
		return ses, err
	}
	if err = importsession.CheckTheme(in.Theme, ses.AllowedOrigins); err != nil {
		return ses, err
	}
	ses.Theme = in.Theme
	if err = importsession.CheckTexts(in.Texts, s.texts); err != nil {
		return ses, err
	}
	ses.Texts = in.Texts
	if errs := in.SubmitPolicy.Check("submit_policy"); len(errs) > 0 {
		return ses, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The submit policy is not valid; see errors.", Fields: errs}
	}
	ses.SubmitPolicy = in.SubmitPolicy
	if ses.SubmitPolicy.InvalidRows == "" {
		ses.SubmitPolicy.InvalidRows = importsession.DropInvalid
	}
	if ses.Metadata, err = metadata(in.Metadata); err != nil {
		return ses, err
	}
	sch, err := s.schema(ctx, orgID, in)
	if err != nil {
		return ses, err
	}
	ses.SchemaID = in.SchemaID
	if in.SchemaID == "" {
		ses.Schema = sch.JSON()
	}
	ses.Options, err = options(in.Options, sch, ses.Locale)
	return ses, err
}

// schema is the target schema of the session's jobs: a saved one or one
// sent inline, never none (an importer always fills a schema).
func (s *Service) schema(ctx context.Context, orgID string, in Input) (*schema.Schema, error) {
	inline := len(bytes.TrimSpace(in.Schema)) > 0 && !bytes.Equal(bytes.TrimSpace(in.Schema), []byte("null"))
	switch {
	case in.SchemaID != "" && inline:
		return nil, domain.Invalid("Send schema or schema_id, not both.")
	case in.SchemaID != "":
		saved, err := s.schemas.Get(ctx, orgID, in.SchemaID)
		if errors.Is(err, domain.ErrNotFound) {
			return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "No saved schema " + in.SchemaID + ".",
				Fields: []domain.FieldError{{Field: "schema_id", Message: "no such schema"}}}
		}
		if err != nil {
			return nil, err
		}
		sch, err := schema.Parse(saved.Document)
		if err != nil {
			return nil, fmt.Errorf("saved schema %s: %w", saved.ID, err)
		}
		return sch, nil
	case inline:
		sch, err := schema.Parse(in.Schema)
		if err != nil {
			return nil, domain.PrefixFields(err, "schema.")
		}
		return sch, nil
	}
	return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "An import session needs schema or schema_id.",
		Fields: []domain.FieldError{{Field: "schema", Message: "required"}}}
}

// options are the jobs' options: review is on unless the backend turned
// it off, so end users match columns before rows are written, and
// booleans read the session's language (boolean_locale) unless the
// backend chose, or the language is the browser's (JobParams sets it).
func options(raw []byte, sch *schema.Schema, locale string) ([]byte, error) {
	fields := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &fields); err != nil {
			return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "options must be a JSON object.",
				Fields: []domain.FieldError{{Field: "options", Message: "must be an object"}}}
		}
	}
	if _, set := fields["review"]; !set {
		fields["review"] = json.RawMessage("true")
	}
	if _, set := fields["boolean_locale"]; !set && locale != importsession.Auto {
		fields["boolean_locale"] = json.RawMessage(strconv.Quote(locale))
	}
	data, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	opts, err := normalize.ParseOptions(normalize.ModeNormalize, data)
	if err != nil {
		return nil, err
	}
	if err := opts.CheckFields(sch); err != nil {
		return nil, err
	}
	return data, nil
}

// metadata is a JSON object of at most 4 KiB; none is {}.
func metadata(raw []byte) ([]byte, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return []byte("{}"), nil
	}
	var obj map[string]json.RawMessage
	if len(t) > importsession.MaxMetadataBytes || json.Unmarshal(t, &obj) != nil {
		return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "metadata must be a JSON object of at most 4096 bytes.",
			Fields: []domain.FieldError{{Field: "metadata", Message: "must be an object of at most 4096 bytes"}}}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, t); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

// List returns the organization's sessions, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, page ports.Page) ([]importsession.Session, string, error) {
	if err := canMint(p); err != nil {
		return nil, "", err
	}
	return s.sessions.List(ctx, p.OrgID, page)
}

// Get returns one of the organization's sessions and how many jobs it has.
func (s *Service) Get(ctx context.Context, p identity.Principal, sessionID string) (importsession.Session, int, error) {
	if err := canMint(p); err != nil {
		return importsession.Session{}, 0, err
	}
	ses, err := s.sessions.Get(ctx, p.OrgID, sessionID)
	if err != nil {
		return importsession.Session{}, 0, err
	}
	n, err := s.sessions.JobCount(ctx, p.OrgID, sessionID)
	return ses, n, err
}

// Details are a session with every job it made, oldest first (a job a
// rerun replaced too, marked superseded), and the summary a submit would
// report of them now.
type Details struct {
	Session importsession.Session
	Jobs    []JobSummary
	Summary Summary
}

// Details returns one of the organization's sessions with its jobs and
// their summary, for an operator.
func (s *Service) Details(ctx context.Context, p identity.Principal, sessionID string) (Details, error) {
	if err := canMint(p); err != nil {
		return Details{}, err
	}
	ses, err := s.sessions.Get(ctx, p.OrgID, sessionID)
	if err != nil {
		return Details{}, err
	}
	js, err := s.sessionJobs(ctx, ses)
	if err != nil {
		return Details{}, err
	}
	d := Details{Session: ses, Jobs: make([]JobSummary, len(js)), Summary: summarize(ses, js)}
	for i, j := range js {
		d.Jobs[i] = jobSummary(j)
	}
	return d, nil
}

// Revoke ends a session at once: its secret is refused from the next
// request on, on every node, since nothing is cached.
func (s *Service) Revoke(ctx context.Context, p identity.Principal, sessionID string) (importsession.Session, error) {
	if err := canMint(p); err != nil {
		return importsession.Session{}, err
	}
	now := s.clock.Now()
	var out importsession.Session
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if out, err = s.sessions.Update(ctx, p.OrgID, sessionID, func(ses *importsession.Session) error {
			ses.Revoke(now)
			return nil
		}); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "import_session.revoke", sessionID, now)
	})
	return out, err
}

// Authenticate turns a client secret into a principal of the session's
// organization, limited to the session. Malformed, unknown and revoked
// secrets get the same answer; an expired one says so.
func (s *Service) Authenticate(ctx context.Context, secret string) (identity.Principal, importsession.Session, error) {
	if !importsession.ValidSecret(secret) {
		return identity.Principal{}, importsession.Session{}, importsession.ErrInvalidSecret
	}
	ses, grants, err := s.sessions.ByHash(ctx, importsession.HashOf(secret))
	if errors.Is(err, domain.ErrNotFound) {
		return identity.Principal{}, importsession.Session{}, importsession.ErrInvalidSecret
	}
	if err != nil {
		return identity.Principal{}, importsession.Session{}, fmt.Errorf("find import session: %w", err)
	}
	now := s.clock.Now()
	if err := ses.Usable(now); err != nil {
		return identity.Principal{}, importsession.Session{}, err
	}
	return identity.Principal{Method: identity.ByImportSession, OrgID: ses.OrgID, Products: entitlement.Products(grants, ses.OrgID, now),
		ImportSessionID: ses.ID}, ses, nil
}

// Current is the session of a client secret's principal, with its jobs.
func (s *Service) Current(ctx context.Context, p identity.Principal) (importsession.Session, []job.Job, error) {
	if err := importsession.CanPrincipalDo(p, importsession.ReadSession); err != nil {
		return importsession.Session{}, nil, err
	}
	ses, err := s.sessions.Get(ctx, p.OrgID, p.ImportSessionID)
	if err != nil {
		return importsession.Session{}, nil, err
	}
	if ses.OpenedAt == nil { // the end user opened the importer: once, for the funnel
		now := s.clock.Now()
		if ses, err = s.sessions.Update(ctx, p.OrgID, p.ImportSessionID, func(ses *importsession.Session) error {
			ses.Open(now)
			return nil
		}); err != nil {
			return importsession.Session{}, nil, err
		}
	}
	js, err := s.sessionJobs(ctx, ses)
	return ses, js, err
}

// MaxFunnelDays is how far back a funnel may look.
const MaxFunnelDays = 90

// Funnel is the organization's funnel of import sessions for each of the
// last days days (UTC, today included, oldest first), and over them all:
// how many sessions created on a day were opened, had a file uploaded,
// columns confirmed, fixes applied, were submitted or expired unused,
// and the median time from creation to submit.
func (s *Service) Funnel(ctx context.Context, p identity.Principal, days int) ([]importsession.Day, importsession.Steps, error) {
	if err := canMint(p); err != nil {
		return nil, importsession.Steps{}, err
	}
	if days == 0 {
		days = 30
	}
	if days < 1 || days > MaxFunnelDays {
		return nil, importsession.Steps{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "days must be 1 to 90.",
			Fields: []domain.FieldError{{Field: "days", Message: "must be 1 to 90"}}}
	}
	now := s.clock.Now().UTC()
	since := now.Truncate(24*time.Hour).AddDate(0, 0, -(days - 1))
	facts, err := s.sessions.Funnel(ctx, p.OrgID, since)
	if err != nil {
		return nil, importsession.Steps{}, err
	}
	return importsession.Funnel(facts, since, now), importsession.Tally(facts, now), nil
}

// sessionJobs lists a session's jobs, oldest first; a session has at
// most MaxMaxJobs of them.
func (s *Service) sessionJobs(ctx context.Context, ses importsession.Session) ([]job.Job, error) {
	js, _, err := s.jobs.List(ctx, ses.OrgID, ports.JobFilter{ImportSessionID: ses.ID}, ports.Page{Limit: importsession.MaxMaxJobs})
	for i, j := 0, len(js)-1; i < j; i, j = i+1, j-1 {
		js[i], js[j] = js[j], js[i]
	}
	return js, err
}

// JobParams are the settings of a job an end user creates in the
// session ses, which the client secret authenticated as: the session's
// schema, options and metadata. A client may name the job, nothing else:
// the customer's backend chose the rest, but for the language of a
// session whose locale is auto: the browser's (acceptLanguage), recorded
// as the job's boolean_locale so that its reruns read booleans alike.
// Whether the session takes
// another job is decided where the job is inserted, holding the session
// (jobs.Creator), so that max_jobs holds under concurrent requests.
func JobParams(ses importsession.Session, in jobs.Params, acceptLanguage string) (jobs.Params, error) {
	if in.Mode != "" || len(in.Schema) > 0 || in.SchemaID != "" || len(in.Options) > 0 {
		return jobs.Params{}, domain.Invalid("A job of an import session takes the session's schema and options; send only file and name.")
	}
	opts := ses.Options
	if ses.Locale == importsession.Auto {
		var err error
		if opts, err = withBooleanLocale(ses.Options, ses.Resolve(acceptLanguage)); err != nil {
			return jobs.Params{}, err
		}
	}
	return jobs.Params{Mode: string(normalize.ModeNormalize), SchemaID: ses.SchemaID, Schema: ses.Schema, Options: opts, Name: in.Name,
		ImportSessionID: ses.ID, Metadata: ses.Metadata}, nil
}

// withBooleanLocale sets boolean_locale in a session's options, unless
// its backend set one.
func withBooleanLocale(raw []byte, locale string) ([]byte, error) {
	fields := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("import session options: %w", err)
	}
	if _, set := fields["boolean_locale"]; set {
		return raw, nil
	}
	fields["boolean_locale"] = json.RawMessage(strconv.Quote(locale))
	return json.Marshal(fields)
}

// Summary is what a submitted session reports: the final job of each
// rerun chain, with their counts summed, and apart the jobs their reruns
// replaced, so that a backend reading Jobs reads each file's rows once.
type Summary struct {
	ImportSessionID  string          `json:"import_session_id"`
	Metadata         json.RawMessage `json:"metadata"`
	SubmittedAt      *string         `json:"submitted_at"` // null in a session's details before its submit
	Jobs             []JobSummary    `json:"jobs"`
	SupersededJobIDs []string        `json:"superseded_job_ids"`
	RowsValid        int64           `json:"rows_valid"`
	RowsRejected     int64           `json:"rows_rejected"`
}

// JobSummary is one job of a submitted session.
type JobSummary struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	RowsRead     int64  `json:"rows_read"`
	RowsValid    int64  `json:"rows_valid"`
	RowsRejected int64  `json:"rows_rejected"`
	Superseded   bool   `json:"superseded"` // false in a summary, which lists final jobs
}

// Submit records that the end user finished and, in the same
// transaction, writes the import_session.submitted webhook with the
// session's jobs and counts, and the deliveries of its final succeeded
// jobs to the destinations their options name (the rows the summary
// counts: a job a rerun replaced is not delivered). Update holds the session as a job's
// insertion does (jobs.Creator), so a job is either made before the
// submit, and in its summary, or refused after it.
func (s *Service) Submit(ctx context.Context, p identity.Principal) (importsession.Session, Summary, error) {
	if err := importsession.CanPrincipalDo(p, importsession.SubmitSession); err != nil {
		return importsession.Session{}, Summary{}, err
	}
	var ses importsession.Session
	var sum Summary
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		now := s.clock.Now()
		if ses, err = s.sessions.Update(ctx, p.OrgID, p.ImportSessionID, func(ses *importsession.Session) error { return ses.Submit(now) }); err != nil {
			return err
		}
		js, err := s.sessionJobs(ctx, ses)
		if err != nil {
			return err
		}
		sum = summarize(ses, js)
		if err := ses.SubmitPolicy.Allows(sum.RowsValid, sum.RowsRejected); err != nil {
			return err // the transaction leaves the session open
		}
		if err := s.pushes.Submitted(ctx, js); err != nil {
			return err
		}
		return s.hooks.Announce(ctx, ses.OrgID, webhook.ImportSessionSubmitted, sum)
	})
	return ses, sum, err
}

// summarize counts the final jobs only: a job a rerun replaced holds the
// same file's rows, and is listed apart.
func summarize(ses importsession.Session, js []job.Job) Summary {
	sum := Summary{ImportSessionID: ses.ID, Metadata: ses.Metadata, Jobs: []JobSummary{}, SupersededJobIDs: []string{}}
	if ses.SubmittedAt != nil {
		at := ses.SubmittedAt.UTC().Format(time.RFC3339Nano)
		sum.SubmittedAt = &at
	}
	for _, j := range js {
		if j.Superseded {
			sum.SupersededJobIDs = append(sum.SupersededJobIDs, j.ID)
			continue
		}
		sum.Jobs = append(sum.Jobs, jobSummary(j))
		sum.RowsValid += j.Progress.RowsValid
		sum.RowsRejected += j.Progress.RowsRejected
	}
	return sum
}

func jobSummary(j job.Job) JobSummary {
	return JobSummary{ID: j.ID, Status: string(j.Status), RowsRead: j.Progress.RowsRead, RowsValid: j.Progress.RowsValid,
		RowsRejected: j.Progress.RowsRejected, Superseded: j.Superseded}
}

// Framing returns what the importer's page needs of a session, by id
// alone: its origins, locale, theme and texts (none of them secret). A session that can no longer be used is
// not found, so its page is framed nowhere.
func (s *Service) Framing(ctx context.Context, sessionID string) (importsession.Session, error) {
	ses, err := s.sessions.Framing(ctx, sessionID)
	if err != nil {
		return importsession.Session{}, err
	}
	if ses.Status(s.clock.Now()) != importsession.Open && ses.Status(s.clock.Now()) != importsession.Submitted {
		return importsession.Session{}, domain.NotFound("import session")
	}
	return importsession.Session{ID: ses.ID, AllowedOrigins: ses.AllowedOrigins, Locale: ses.Locale, Theme: ses.Theme, Texts: ses.Texts}, nil
}

// OriginInUse reports whether an open session allows a browser origin,
// for a preflight, which carries no credential.
func (s *Service) OriginInUse(ctx context.Context, origin string) (bool, error) {
	return s.sessions.OriginInUse(ctx, origin, s.clock.Now())
}
