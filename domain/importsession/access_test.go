package importsession_test

import (
	"errors"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/importsession"
)

var (
	secret = identity.Principal{Method: identity.ByImportSession, OrgID: "org_1", ImportSessionID: "imp_1"}
	apiKey = identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", KeyID: "key_1"}
	user   = identity.Principal{Method: identity.BySession, OrgID: "org_1", UserID: "usr_1", Role: identity.Member}
)

// TestCanPrincipalDo: a client secret takes its session's actions and
// no other; an API key and a user's session pass every action here.
func TestCanPrincipalDo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		action  importsession.Action
		allowed bool
	}{
		{importsession.ReadSession, true},
		{importsession.SubmitSession, true},
		{importsession.CreateJob, true},
		{importsession.ReadJob, true},
		{importsession.CancelJob, true},
		{importsession.ReviewJob, true},
		{importsession.ConfirmJob, true},
		{importsession.RerunJob, true},
		{importsession.ListJobs, false},
		{importsession.DeleteJob, false},
		{importsession.Manage, false},
		{"", false},
	} {
		t.Run(string(tc.action), func(t *testing.T) {
			t.Parallel()
			err := importsession.CanPrincipalDo(secret, tc.action)
			if tc.allowed && err != nil {
				t.Errorf("a client secret may %s: %v", tc.action, err)
			}
			if !tc.allowed && domain.CodeOf(err) != domain.CodeForbiddenImportSession {
				t.Errorf("a client secret may not %s: got %v, want forbidden_import_session", tc.action, err)
			}
			for _, p := range []identity.Principal{apiKey, user} {
				if err := importsession.CanPrincipalDo(p, tc.action); err != nil {
					t.Errorf("a %s may %s: %v", p.Method, tc.action, err)
				}
			}
		})
	}
}

// TestCanPrincipalUseJob: a client secret reaches its own session's jobs;
// a job of its organization outside the session, or of no session, is
// not found; an action it may not take is forbidden even on its own job.
func TestCanPrincipalUseJob(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		p          identity.Principal
		action     importsession.Action
		jobSession string
		want       error // nil, domain.ErrNotFound or domain.ErrForbidden
	}{
		{"own_job", secret, importsession.ReadJob, "imp_1", nil},
		{"own_job_rerun", secret, importsession.RerunJob, "imp_1", nil},
		{"own_job_delete", secret, importsession.DeleteJob, "imp_1", domain.ErrForbidden},
		{"other_session_job", secret, importsession.ReadJob, "imp_2", domain.ErrNotFound},
		{"job_of_no_session", secret, importsession.CancelJob, "", domain.ErrNotFound},
		{"api_key_any_job", apiKey, importsession.DeleteJob, "imp_2", nil},
		{"user_job_of_no_session", user, importsession.ReviewJob, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := importsession.CanPrincipalUseJob(tc.p, tc.action, "job_1", tc.jobSession)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("CanPrincipalUseJob(%s, %s, a job of %q) = %v, want %v", tc.p.Method, tc.action, tc.jobSession, err, tc.want)
			}
		})
	}
}
