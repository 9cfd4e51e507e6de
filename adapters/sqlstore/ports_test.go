package sqlstore_test

import (
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

// stores is every repository of the store on db.
func stores(db *sqlstore.DB) portstest.Stores {
	return portstest.Stores{
		Tx:                sqlstore.NewTransactor(db),
		Organizations:     sqlstore.NewOrganizations(db),
		Entitlements:      sqlstore.NewEntitlements(db),
		Users:             sqlstore.NewUsers(db),
		APIKeys:           sqlstore.NewAPIKeys(db),
		Sessions:          sqlstore.NewSessions(db),
		AuditLog:          sqlstore.NewAuditLog(db),
		Credentials:       sqlstore.NewCredentials(db),
		Jobs:              sqlstore.NewJobs(db),
		JobEvents:         sqlstore.NewJobEvents(db),
		JobSlots:          sqlstore.NewJobs(db),
		Quotas:            sqlstore.NewQuotas(db),
		Files:             sqlstore.NewFiles(db),
		Schemas:           sqlstore.NewSchemas(db),
		Lists:             sqlstore.NewLists(db),
		LearnedMappings:   sqlstore.NewLearnedMappings(db),
		Idempotency:       sqlstore.NewIdempotency(db),
		WebhookEndpoints:  sqlstore.NewWebhookEndpoints(db),
		WebhookDeliveries: sqlstore.NewWebhookDeliveries(db),
		BlobOwners:        sqlstore.NewBlobOwners(db),
		JobReviews:        sqlstore.NewReviews(db),
		JobEdits:          sqlstore.NewEdits(db),
		JobHistory:        sqlstore.NewHistory(db),
		Destinations:      sqlstore.NewDestinations(db),
		Pushes:            sqlstore.NewPushes(db),
		Hooks:             sqlstore.NewHooks(db),
		SSOConfigs:        sqlstore.NewSSOConfigs(db),
		SSOFlows:          sqlstore.NewSSOFlows(db),
	}
}

// TestRepositories runs the conformance suite of every repository port
// on each database, with a fresh, migrated database for each step.
func TestRepositories(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		t.Run(kind.Name, func(t *testing.T) {
			t.Parallel()
			portstest.Repositories(t, func(t *testing.T) portstest.Stores { return stores(openStore(t, kind.New(t))) })
		})
	}
}
