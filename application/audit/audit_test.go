package audit_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func newService(t *testing.T, retention time.Duration) (*audit.Service, *mocks.AuditLog) {
	t.Helper()
	log, clock := mocks.NewAuditLog(t), mocks.NewClock(t)
	clock.EXPECT().Now().Return(now).Maybe()
	return audit.NewService(audit.Config{Retention: retention}, log, clock, slog.New(slog.DiscardHandler)), log
}

// TestService_Purge: entries older than the retention are deleted; no
// retention deletes nothing.
func TestService_Purge(t *testing.T) {
	t.Parallel()
	svc, log := newService(t, 90*24*time.Hour)
	log.EXPECT().Purge(mock.Anything, now.Add(-90*24*time.Hour)).Return(3, nil).Once()
	if n, err := svc.Purge(context.Background()); n != 3 || err != nil {
		t.Fatalf("Purge = %d, %v", n, err)
	}
	keep, _ := newService(t, 0) // the mock fails the test on any call
	if n, err := keep.Purge(context.Background()); n != 0 || err != nil {
		t.Fatalf("Purge without retention = %d, %v", n, err)
	}
}

// TestService_who: admins' sessions and admin keys read the log; members,
// narrower keys and import sessions do not, and nothing is read for them.
func TestService_who(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		p    identity.Principal
		code domain.Code
	}{
		"admin":          {identity.Principal{Method: identity.BySession, OrgID: "org_1", Role: identity.Admin}, ""},
		"admin key":      {identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", Scopes: []apikey.Scope{apikey.AdminScope}}, ""},
		"member":         {identity.Principal{Method: identity.BySession, OrgID: "org_1", Role: identity.Member}, domain.CodeInsufficientPermissions},
		"jobs:read key":  {identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", Scopes: []apikey.Scope{apikey.JobsRead}}, domain.CodeInsufficientScope},
		"import session": {identity.Principal{Method: identity.ByImportSession, OrgID: "org_1"}, domain.CodeInsufficientPermissions},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			svc, log := newService(t, 0)
			if c.code == "" {
				log.EXPECT().List(mock.Anything, "org_1", identity.AuditFilter{}, ports.Page{Limit: 10}).Return(nil, "", nil).Once()
			}
			_, _, err := svc.List(context.Background(), c.p, identity.AuditFilter{}, ports.Page{Limit: 10})
			if domain.CodeOf(err) != c.code {
				t.Fatalf("List: %v, want %q", err, c.code)
			}
		})
	}
}
