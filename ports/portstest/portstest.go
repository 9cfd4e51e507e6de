// Package portstest holds the conformance suites of the outbound ports:
// what any adapter behind a port must do, whatever it stores or carries
// things with. An adapter's own tests run the suite of each port it
// implements, with a function that opens a fresh, empty instance:
//
//	func TestBlobStore(t *testing.T) {
//		portstest.BlobStore(t, func(t *testing.T) ports.BlobStore { return openStore(t) })
//	}
//
// Each suite runs named steps (t.Run), opening a new instance for every
// step, so a step's failure names the behaviour that broke and no step
// depends on another. docs/adapters.md tells how to write, prove and
// wire in an adapter.
package portstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

// Stores is one fresh, empty database seen through the repository ports:
// what the repository suites run against. Every field must be set; the
// repositories share the database, so a suite can create the
// organization a job belongs to.
type Stores struct {
	Tx                ports.Transactor
	Organizations     ports.Organizations
	Entitlements      ports.Entitlements
	Users             ports.Users
	APIKeys           ports.APIKeys
	Sessions          ports.Sessions
	AuditLog          ports.AuditLog
	Credentials       ports.Credentials
	Jobs              ports.Jobs
	JobEvents         ports.JobEvents
	JobSlots          ports.JobSlots
	Quotas            ports.Quotas
	Files             ports.Files
	Schemas           ports.Schemas
	Lists             ports.Lists
	LearnedMappings   ports.LearnedMappings
	Idempotency       ports.Idempotency
	WebhookEndpoints  ports.WebhookEndpoints
	WebhookDeliveries ports.WebhookDeliveries
	BlobOwners        ports.BlobOwners
	JobReviews        ports.JobReviews
	JobEdits          ports.JobEdits
	JobHistory        ports.JobHistory
	Destinations      ports.Destinations
	Pushes            ports.Pushes
	Hooks             ports.Hooks
	SSOConfigs        ports.SSOConfigs
	SSOFlows          ports.SSOFlows
}

// Repositories runs the suite of every repository port against stores
// opened by open, the suites in parallel: open must make independent
// stores (a fresh database each time).
func Repositories(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	for _, suite := range []struct {
		name string
		run  func(*testing.T, func(*testing.T) Stores)
	}{
		{"Transactor", Transactor},
		{"Organizations", Organizations},
		{"Entitlements", Entitlements},
		{"Users", Users},
		{"APIKeys", APIKeys},
		{"Sessions", Sessions},
		{"AuditLog", AuditLog},
		{"Credentials", Credentials},
		{"Jobs", Jobs},
		{"JobEvents", JobEvents},
		{"JobSlots", JobSlots},
		{"Quotas", Quotas},
		{"Files", Files},
		{"Schemas", Schemas},
		{"Lists", Lists},
		{"LearnedMappings", LearnedMappings},
		{"Idempotency", Idempotency},
		{"WebhookEndpoints", WebhookEndpoints},
		{"WebhookDeliveries", WebhookDeliveries},
		{"BlobOwners", BlobOwners},
		{"JobReviews", JobReviews},
		{"JobEdits", JobEdits},
		{"JobHistory", JobHistory},
		{"Destinations", Destinations},
		{"Pushes", Pushes},
		{"Hooks", Hooks},
		{"SSOConfigs", SSOConfigs},
		{"SSOFlows", SSOFlows},
	} {
		t.Run(suite.name, func(t *testing.T) {
			t.Parallel() // each step opens its own stores
			suite.run(t, open)
		})
	}
}

// step is one named behaviour of a suite, run against a fresh instance.
type step[T any] struct {
	name string
	run  func(t *testing.T, x T)
}

// runSteps runs each step as a subtest against its own instance.
func runSteps[T any](t *testing.T, open func(t *testing.T) T, steps []step[T]) {
	t.Helper()
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { s.run(t, open(t)) })
	}
}

// now is the suites' fixed clock: times round-trip at millisecond
// precision and in UTC.
var now = time.Date(2026, 11, 22, 9, 0, 0, 123e6, time.UTC)

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%v, want no error", err)
	}
}

// isKind fails unless err wraps the domain error kind.
func isKind(t *testing.T, err, kind error, what string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s: %v, want an error wrapping %q", what, err, kind)
	}
}

// seedOrg creates an organization with the products.
func seedOrg(t *testing.T, s Stores, products ...identity.Product) identity.Organization {
	t.Helper()
	org, err := identity.NewOrganization(id.New(id.Org), "Acme", products, now)
	ok(t, err)
	ok(t, s.Organizations.Create(context.Background(), org))
	for _, p := range products {
		grant(t, s, org.ID, p, nil)
	}
	return org
}

// seedUser creates an admin of the organization.
func seedUser(t *testing.T, s Stores, org identity.Organization) identity.User {
	t.Helper()
	u := identity.User{ID: id.New(id.User), OrgID: org.ID, Email: id.New("u") + "@acme.test", Role: identity.Admin,
		PasswordHash: "$argon2id$x", CreatedAt: now}
	ok(t, s.Users.Create(context.Background(), u))
	return u
}

// newJob is a queued upload job of the organization.
func newJob(orgID string, created time.Time) job.Job {
	return job.Job{ID: id.New(id.Job), OrgID: orgID, Mode: "normalize", Status: job.Queued, SourceType: "upload",
		Files:  []job.File{{ID: id.New(id.File), Filename: "contacts.csv", Format: "csv", SizeBytes: 1234, SHA256: "ab"}},
		Schema: []byte(`{"fields":[]}`), Options: []byte(`{"trim":true}`), Progress: job.Progress{BytesTotal: 1234}, CreatedAt: created}
}

// seedJob creates a queued job of the organization.
func seedJob(t *testing.T, s Stores, orgID string, created time.Time) job.Job {
	t.Helper()
	j := newJob(orgID, created)
	ok(t, s.Jobs.Create(context.Background(), j))
	return j
}

// newFile is a library file over 4 GiB, so sizes must not be 32-bit.
func newFile(orgID, name string) connect.File {
	return connect.File{ID: id.New(id.File), OrgID: orgID, Filename: name, Format: "csv", SizeBytes: 5 << 30, SHA256: "cd", CreatedAt: now}
}

// pages reads every page of a list, limit items at a time, and returns
// the ids in the order listed.
func pages[T any](t *testing.T, limit int, list func(ports.Page) ([]T, string, error), idOf func(T) string) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for range 100 {
		page, next, err := list(ports.Page{Limit: limit, Cursor: cursor})
		ok(t, err)
		if len(page) > limit {
			t.Fatalf("List: a page of %d items, want at most the limit %d", len(page), limit)
		}
		for _, x := range page {
			ids = append(ids, idOf(x))
		}
		if next == "" {
			return ids
		}
		cursor = next
	}
	t.Fatal("List: still a next page after 100 pages, want the list to end")
	return nil
}

// newestFirst fails unless got lists created (oldest first) newest first.
func newestFirst(t *testing.T, what string, got, created []string) {
	t.Helper()
	if len(got) != len(created) {
		t.Fatalf("%s listed %d, want %d: %v", what, len(got), len(created), got)
	}
	for i := range got {
		if got[i] != created[len(created)-1-i] {
			t.Fatalf("%s listed %v, want newest first of %v", what, got, created)
		}
	}
}
