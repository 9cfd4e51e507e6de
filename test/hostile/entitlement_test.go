package hostile

import (
	"context"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestEntitlementByJobKind: an upload job belongs to normalize. Once the
// organization loses normalize it must not be readable, cancellable or
// deletable through the connect paths; connect jobs stay reachable there.
func TestEntitlementByJobKind(t *testing.T) {
	t.Parallel()
	app := apptest.Start(t, sqltest.SQLite(t))
	org := app.Org("Both", identity.Normalize, identity.Connect)
	key := apptest.Caller{Key: app.Key(org)}
	up := startUploadJob(t, app, key)
	untilDone(t, app, key, "/v1/jobs/"+up.ID)
	conn := startConnectJob(t, app, key)
	untilDone(t, app, key, "/v1/connect/jobs/"+conn.ID)
	// Connect jobs answer at the spec's job paths too.
	wantStatus(t, app.Do("GET", "/v1/jobs/"+conn.ID, key, nil), 200, "")
	wantStatus(t, app.Do("GET", "/v1/jobs/"+conn.ID+"/events", key, nil), 200, "")

	if _, err := app.Accounts.Revoke(context.Background(), org.ID, identity.Normalize); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, app.Do("GET", "/v1/jobs/"+up.ID, key, nil), 403, "forbidden_entitlement_missing")
	for _, r := range []struct{ method, path string }{
		{"GET", ""}, {"GET", "/rows"}, {"GET", "/errors"}, {"GET", "/events"}, {"POST", "/cancel"}, {"DELETE", ""},
	} {
		wantStatus(t, app.Do(r.method, "/v1/connect/jobs/"+up.ID+r.path, key, nil), 404, "not_found")
	}
	for _, path := range []string{"", "/rows", "/errors", "/events"} {
		wantStatus(t, app.Do("GET", "/v1/connect/jobs/"+conn.ID+path, key, nil), 200, "")
	}
	wantStatus(t, app.Do("DELETE", "/v1/connect/jobs/"+conn.ID, key, nil), 204, "")
}

// TestEntitlementExpiry: a grant until a moment works up to it and not
// after, on the next request, on both databases; a new grant without end
// restores the product.
func TestEntitlementExpiry(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			app := apptest.Start(t, target)
			org := app.Org("Trial", identity.Normalize)
			key := apptest.Caller{Key: app.Key(org)}
			until := app.Clock.Now().Add(time.Hour)
			if _, err := app.Accounts.Grant(ctx, org.ID, identity.Connect, &until); err != nil {
				t.Fatal(err)
			}
			wantStatus(t, app.Do("GET", "/v1/connect/files", key, nil), 200, "")
			app.Clock.Advance(time.Hour)
			wantStatus(t, app.Do("GET", "/v1/connect/files", key, nil), 403, "forbidden_entitlement_missing")
			wantStatus(t, app.Do("GET", "/v1/jobs", key, nil), 200, "")
			if got, err := app.Accounts.Org(ctx, org.ID); err != nil || got.Has(identity.Connect) {
				t.Fatalf("the organization after connect's end: %+v, %v", got, err)
			}
			if _, err := app.Accounts.Grant(ctx, org.ID, identity.Connect, nil); err != nil {
				t.Fatal(err)
			}
			wantStatus(t, app.Do("GET", "/v1/connect/files", key, nil), 200, "")
			hist, err := app.Accounts.Entitlements(ctx, org.ID, true)
			if err != nil || len(hist) != 3 || !hist[1].Expired(app.Clock.Now()) || !hist[1].Revoked() {
				t.Fatalf("history: %+v, %v", hist, err)
			}
		})
	}
}
