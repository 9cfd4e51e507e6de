package auth_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/session"
)

// TestImpersonate_switchingStopsThePreviousOne: going from organization A
// straight to B ends A's impersonation in the audit log as a stop would.
func TestImpersonate_switchingStopsThePreviousOne(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	staff := identity.User{ID: "usr_staff", OrgID: "org_home", Role: identity.Admin, IsStaff: true}
	ses, _ := session.New(staff.ID, staff.OrgID, now)
	ses.ImpersonatedOrgID = "org_b"
	p := identity.Principal{Method: identity.BySession, UserID: staff.ID, Role: identity.Admin, IsStaff: true,
		OrgID: "org_a", HomeOrgID: "org_home", Impersonating: true, SessionHash: ses.Hash}

	var mu sync.Mutex
	var got []identity.AuditEntry
	f.audit.EXPECT().Record(mock.Anything, mock.Anything).RunAndReturn(func(_ context.Context, e identity.AuditEntry) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, e)
		return nil
	})
	f.orgs.EXPECT().Get(mock.Anything, "org_b").Return(identity.Organization{ID: "org_b"}, nil)
	f.grants.EXPECT().Current(mock.Anything, "org_b").Return(nil, nil)
	f.sessions.EXPECT().SetImpersonation(mock.Anything, ses.Hash, "org_b", mock.Anything).Return(nil)
	f.users.EXPECT().Get(mock.Anything, staff.ID).Return(staff, nil)
	f.sessions.EXPECT().Get(mock.Anything, ses.Hash).Return(ses, nil)

	if _, err := f.svc.Impersonate(context.Background(), p, "org_b", identity.Client{IP: "192.0.2.1", UserAgent: "test"}); err != nil {
		t.Fatal(err)
	}
	want := map[[3]string]bool{ // org, action, target
		{"org_a", "impersonation.stop", "org_a"}: false, {"org_home", "impersonation.stop", "org_a"}: false,
		{"org_b", "impersonation.start", "org_b"}: false, {"org_home", "impersonation.start", "org_b"}: false,
	}
	for _, e := range got {
		want[[3]string{e.OrgID, e.Action, e.TargetID}] = true
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("no %s in %s for %s; audit written: %+v", k[1], k[0], k[2], got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d audit entries, want %d: %+v", len(got), len(want), got)
	}
}
