package importsession

import (
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// Action is what a request asks to do, as the rule of a client secret
// sees it. The use cases name theirs; the HTTP adapter names the action of
// each route, and Manage for every route not listed.
type Action string

// The actions a client secret may take: its session, creating jobs in
// it, and reading, reviewing, cancelling, confirming and rerunning them.
const (
	ReadSession   Action = "read its session"
	SubmitSession Action = "submit its session"
	CreateJob     Action = "create a job"
	// ReadJob reads a job, its events, results, review, invalid values,
	// rejected rows and edits.
	ReadJob   Action = "read a job"
	CancelJob Action = "cancel a job"
	// ReviewJob changes a job's review before it is confirmed: its sheet,
	// mapping, value fixes and cell edits.
	ReviewJob  Action = "review a job"
	ConfirmJob Action = "confirm a job"
	// RerunJob makes a new job of the session from one of its jobs and
	// fixes; the session's max_jobs counts it (TakesJob).
	RerunJob Action = "rerun a job"
)

// The actions a client secret may not take.
const (
	ListJobs  Action = "list the organization's jobs"
	DeleteJob Action = "delete a job"
	// Manage is everything else an organization's own credentials do:
	// keys, schemas, lists, webhooks, usage, connect files, sessions.
	Manage Action = "manage the organization"
)

// secretActions are what a client secret may do.
var secretActions = map[Action]bool{
	ReadSession: true, SubmitSession: true, CreateJob: true, ReadJob: true, CancelJob: true, ReviewJob: true, ConfirmJob: true, RerunJob: true,
}

// ErrForbidden refuses a client secret an action outside its session.
var ErrForbidden = domain.Errorf(domain.ErrForbidden, domain.CodeForbiddenImportSession,
	"An import session's client secret can only use its session and its jobs.")

// CanPrincipalDo is the rule of a client secret: it may take the
// actions above, and no other. Every other credential passes: its role
// and entitlements are checked apart.
func CanPrincipalDo(p identity.Principal, a Action) error {
	if p.Method != identity.ByImportSession || secretActions[a] {
		return nil
	}
	return ErrForbidden
}

// CanPrincipalUseJob is the rule for one job, read by the use case that
// acts on it: a client secret may take the action on its own session's
// jobs only; any other job of its organization is not found, as another
// organization's is. jobSessionID is the job's import session, "" for none.
func CanPrincipalUseJob(p identity.Principal, a Action, jobID, jobSessionID string) error {
	if err := CanPrincipalDo(p, a); err != nil {
		return err
	}
	if p.Method == identity.ByImportSession && jobSessionID != p.ImportSessionID {
		return domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No job %s.", jobID)
	}
	return nil
}
