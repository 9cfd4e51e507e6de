package importsessions

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/jobs"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

type fixture struct {
	svc      *Service
	sessions *mocks.ImportSessions
	jobs     *mocks.Jobs
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{sessions: mocks.NewImportSessions(t), jobs: mocks.NewJobs(t)}
	clock := mocks.NewClock(t)
	clock.EXPECT().Now().Return(now).Maybe()
	tx, trail := mocks.NewTransactor(t), mocks.NewAuditLog(t)
	tx.EXPECT().InTx(mock.Anything, mock.Anything).RunAndReturn(func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }).Maybe()
	trail.EXPECT().Record(mock.Anything, mock.Anything).Return(nil).Maybe()
	f.svc = NewService(f.sessions, mocks.NewSchemas(t), f.jobs, tx, nil, nil, clock, func(k string) bool { return k == "title" }, trail)
	return f
}

var (
	byKey    = identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", KeyID: "key_1"}
	byAdmin  = identity.Principal{Method: identity.BySession, OrgID: "org_1", UserID: "usr_1", Role: identity.Admin}
	byMember = identity.Principal{Method: identity.BySession, OrgID: "org_1", UserID: "usr_2", Role: identity.Member}
	byEnd    = identity.Principal{Method: identity.ByImportSession, OrgID: "org_1", ImportSessionID: "imp_1"}
)

func TestCreate_storesTheHashOnlyAndTheSettings(t *testing.T) {
	f := newFixture(t)
	var stored importsession.Session
	f.sessions.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, s importsession.Session) { stored = s }).Return(nil).Once()
	ses, secret, err := f.svc.Create(context.Background(), byAdmin, Input{Schema: []byte(`{"fields":[{"name":"email","type":"string"}]}`),
		AllowedOrigins: []string{"https://app.example.com"}, ExpiresIn: 600, MaxJobs: 3, Locale: "de", Metadata: []byte(`{"ref": "a"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !importsession.ValidSecret(secret) || stored.Hash != importsession.HashOf(secret) || ses.ID != stored.ID {
		t.Fatalf("secret %q, stored %+v", secret, stored)
	}
	if !stored.ExpiresAt.Equal(now.Add(10*time.Minute)) || stored.MaxJobs != 3 || stored.Locale != "de" || stored.CreatedBy != "usr_1" ||
		string(stored.Metadata) != `{"ref":"a"}` || stored.Schema == nil || stored.OrgID != "org_1" {
		t.Fatalf("stored %+v", stored)
	}
}

func TestCreate_refusesMembersAndBadSettings(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.svc.Create(context.Background(), byMember, Input{}); domain.CodeOf(err) != domain.CodeInsufficientPermissions {
		t.Fatalf("a member: %v", err)
	}
	if _, _, err := f.svc.Create(context.Background(), byEnd, Input{}); domain.CodeOf(err) != domain.CodeInsufficientPermissions {
		t.Fatalf("an end user: %v", err)
	}
	for name, in := range map[string]Input{
		"both schemas":   {SchemaID: "sch_1", Schema: []byte(`{"fields":[]}`), AllowedOrigins: []string{"https://a.example"}},
		"no schema":      {AllowedOrigins: []string{"https://a.example"}},
		"bad origin":     {Schema: []byte(`{"fields":[{"name":"a"}]}`), AllowedOrigins: []string{"javascript:alert(1)"}},
		"bad locale":     {Schema: []byte(`{"fields":[{"name":"a"}]}`), AllowedOrigins: []string{"https://a.example"}, Locale: "xx-bad"},
		"metadata array": {Schema: []byte(`{"fields":[{"name":"a"}]}`), AllowedOrigins: []string{"https://a.example"}, Metadata: []byte(`[1]`)},
		"unknown text":   {Schema: []byte(`{"fields":[{"name":"a"}]}`), AllowedOrigins: []string{"https://a.example"}, Texts: map[string]string{"titel": "x"}},
		"pale text": {Schema: []byte(`{"fields":[{"name":"a"}]}`), AllowedOrigins: []string{"https://a.example"},
			Theme: importsession.Theme{Palette: importsession.Palette{Text: "#aaaaaa"}}},
	} {
		if _, _, err := f.svc.Create(context.Background(), byKey, in); !errors.Is(err, domain.ErrInvalid) {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.svc.Authenticate(context.Background(), "imp_secret_short"); !errors.Is(err, importsession.ErrInvalidSecret) {
		t.Fatalf("malformed: %v", err)
	}
	secret := importsession.GenerateSecret()
	open := importsession.Session{ID: "imp_1", OrgID: "org_1", ExpiresAt: now.Add(time.Hour)}
	grants := []entitlement.Entitlement{{OrgID: "org_1", Product: identity.Normalize, GrantedAt: now.Add(-time.Hour)}}
	f.sessions.EXPECT().ByHash(mock.Anything, importsession.HashOf(secret)).Return(open, grants, nil).Once()
	p, _, err := f.svc.Authenticate(context.Background(), secret)
	if err != nil || p.Method != identity.ByImportSession || p.ImportSessionID != "imp_1" || p.OrgID != "org_1" || len(p.Products) != 1 {
		t.Fatalf("open session: %+v %v", p, err)
	}
	expired := open
	expired.ExpiresAt = now
	f.sessions.EXPECT().ByHash(mock.Anything, mock.Anything).Return(expired, grants, nil).Once()
	if _, _, err := f.svc.Authenticate(context.Background(), secret); domain.CodeOf(err) != domain.CodeImportSessionExpired {
		t.Fatalf("expired: %v", err)
	}
	revoked := open
	revoked.Revoke(now.Add(-time.Minute))
	f.sessions.EXPECT().ByHash(mock.Anything, mock.Anything).Return(revoked, grants, nil).Once()
	if _, _, err := f.svc.Authenticate(context.Background(), secret); !errors.Is(err, importsession.ErrInvalidSecret) {
		t.Fatalf("revoked: %v", err)
	}
	f.sessions.EXPECT().ByHash(mock.Anything, mock.Anything).Return(importsession.Session{}, nil, domain.NotFound("import session")).Once()
	if _, _, err := f.svc.Authenticate(context.Background(), secret); !errors.Is(err, importsession.ErrInvalidSecret) {
		t.Fatalf("unknown: %v", err)
	}
}

func TestJobParams_areTheSessions(t *testing.T) {
	t.Parallel()
	ses := importsession.Session{ID: "imp_1", OrgID: "org_1", SchemaID: "sch_1", Options: []byte(`{"review":true}`), Metadata: []byte(`{"a":1}`),
		MaxJobs: 2, ExpiresAt: now.Add(time.Hour)}
	if _, err := JobParams(ses, jobs.Params{Mode: "infer"}, ""); !errors.Is(err, domain.ErrInvalid) {
		t.Fatalf("a mode from the end user: %v", err)
	}
	got, err := JobParams(ses, jobs.Params{Name: "mine"}, "")
	if err != nil || got.SchemaID != "sch_1" || got.Mode != "normalize" || got.ImportSessionID != "imp_1" || got.Name != "mine" ||
		string(got.Options) != `{"review":true}` || string(got.Metadata) != `{"a":1}` {
		t.Fatalf("params %+v %v", got, err)
	}
}

func TestCurrentAndSummary_countTheSessionsJobsOldestFirst(t *testing.T) {
	f := newFixture(t)
	ses := importsession.Session{ID: "imp_1", OrgID: "org_1", Metadata: []byte(`{"a":1}`), ExpiresAt: now.Add(time.Hour)}
	newest := job.Job{ID: "job_2", Status: job.Succeeded, Progress: job.Progress{RowsRead: 4, RowsValid: 3, RowsRejected: 1}}
	oldest := job.Job{ID: "job_1", Status: job.Succeeded, Progress: job.Progress{RowsRead: 2, RowsValid: 2}}
	f.sessions.EXPECT().Get(mock.Anything, "org_1", "imp_1").Return(ses, nil).Once()
	// The first read opens the session (for the funnel); the next reads
	// find it opened and write nothing.
	f.sessions.EXPECT().Update(mock.Anything, "org_1", "imp_1", mock.Anything).RunAndReturn(
		func(_ context.Context, _, _ string, fn func(*importsession.Session) error) (importsession.Session, error) {
			s := ses
			return s, fn(&s)
		}).Once()
	f.jobs.EXPECT().List(mock.Anything, "org_1", ports.JobFilter{ImportSessionID: "imp_1"}, mock.Anything).Return([]job.Job{newest, oldest}, "", nil).Twice()
	read, js, err := f.svc.Current(context.Background(), byEnd)
	if err != nil || len(js) != 2 || js[0].ID != "job_1" || read.OpenedAt == nil || !read.OpenedAt.Equal(now) {
		t.Fatalf("jobs %+v %v, opened %v", js, err, read.OpenedAt)
	}
	f.sessions.EXPECT().Get(mock.Anything, "org_1", "imp_1").Return(read, nil).Once()
	if _, _, err := f.svc.Current(context.Background(), byEnd); err != nil {
		t.Fatal(err)
	}
	if err := ses.Submit(now); err != nil {
		t.Fatal(err)
	}
	sum := summarize(ses, js)
	if sum.RowsValid != 5 || sum.RowsRejected != 1 || len(sum.Jobs) != 2 || sum.SubmittedAt == nil || *sum.SubmittedAt != "2026-11-25T09:00:00Z" || string(sum.Metadata) != `{"a":1}` {
		t.Fatalf("summary %+v", sum)
	}
}

func TestRevokeListGetFraming(t *testing.T) {
	f := newFixture(t)
	ses := importsession.Session{ID: "imp_1", OrgID: "org_1", AllowedOrigins: []string{"https://a.example"}, Locale: "en", ExpiresAt: now.Add(time.Hour)}
	f.sessions.EXPECT().Update(mock.Anything, "org_1", "imp_1", mock.Anything).RunAndReturn(
		func(_ context.Context, _, _ string, fn func(*importsession.Session) error) (importsession.Session, error) {
			s := ses
			return s, fn(&s)
		}).Once()
	if _, err := f.svc.Revoke(context.Background(), byMember, "imp_1"); domain.CodeOf(err) != domain.CodeInsufficientPermissions {
		t.Fatalf("member revokes: %v", err)
	}
	if _, err := f.svc.Revoke(context.Background(), byKey, "imp_1"); err != nil {
		t.Fatal(err)
	}
	f.sessions.EXPECT().Get(mock.Anything, "org_1", "imp_1").Return(ses, nil).Once()
	f.sessions.EXPECT().JobCount(mock.Anything, "org_1", "imp_1").Return(3, nil).Once()
	if _, n, err := f.svc.Get(context.Background(), byKey, "imp_1"); err != nil || n != 3 {
		t.Fatalf("get: %d %v", n, err)
	}
	f.sessions.EXPECT().List(mock.Anything, "org_1", mock.Anything).Return([]importsession.Session{ses}, "", nil).Once()
	if got, _, err := f.svc.List(context.Background(), byKey, ports.Page{Limit: 10}); err != nil || len(got) != 1 {
		t.Fatalf("list: %v %v", got, err)
	}
	f.sessions.EXPECT().Framing(mock.Anything, "imp_1").Return(ses, nil).Once()
	if got, err := f.svc.Framing(context.Background(), "imp_1"); err != nil || got.Locale != "en" || got.Hash != (importsession.Hash{}) {
		t.Fatalf("framing: %+v %v", got, err)
	}
	gone := ses
	gone.Revoke(now)
	f.sessions.EXPECT().Framing(mock.Anything, "imp_2").Return(gone, nil).Once()
	if _, err := f.svc.Framing(context.Background(), "imp_2"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("framing a revoked session: %v", err)
	}
	f.sessions.EXPECT().OriginInUse(mock.Anything, "https://a.example", now).Return(true, nil).Once()
	if ok, err := f.svc.OriginInUse(context.Background(), "https://a.example"); !ok || err != nil {
		t.Fatalf("origin: %v %v", ok, err)
	}
}

// TestCreate_booleansFollowTheLocale: a session's jobs read booleans in
// its language (options.boolean_locale) unless the backend chose; a
// session in auto takes the browser's language when a job is made, and
// records it in the job's options.
func TestCreate_booleansFollowTheLocale(t *testing.T) {
	f := newFixture(t)
	f.sessions.EXPECT().Create(mock.Anything, mock.Anything).Return(nil)
	mk := func(locale, opts string) importsession.Session {
		ses, _, err := f.svc.Create(context.Background(), byKey, Input{Schema: []byte(`{"fields":[{"name":"a","type":"boolean"}]}`),
			AllowedOrigins: []string{"https://a.example"}, Locale: locale, Options: []byte(opts), Texts: map[string]string{"title": "Hallo"}})
		if err != nil {
			t.Fatal(err)
		}
		return ses
	}
	if o := string(mk("de", "").Options); o != `{"boolean_locale":"de","review":true}` {
		t.Errorf("a German session's options: %s", o)
	}
	if o := string(mk("fr", `{"boolean_locale":"nl"}`).Options); o != `{"boolean_locale":"nl","review":true}` {
		t.Errorf("the backend's choice: %s", o)
	}
	auto := mk("auto", "")
	if o := string(auto.Options); o != `{"review":true}` || auto.Texts["title"] != "Hallo" {
		t.Errorf("an auto session: %s %v", o, auto.Texts)
	}
	p, err := JobParams(auto, jobs.Params{Name: "x"}, "pt-BR,pt;q=0.9,en;q=0.5")
	if err != nil || string(p.Options) != `{"boolean_locale":"pt","review":true}` {
		t.Errorf("a job of an auto session: %s %v", p.Options, err)
	}
	if p, _ := JobParams(mk("it", ""), jobs.Params{}, "de"); string(p.Options) != `{"boolean_locale":"it","review":true}` {
		t.Errorf("a job of an Italian session in a German browser: %s", p.Options)
	}
}
