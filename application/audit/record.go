package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Record appends the entry of action on target by p, with the client the
// request's context carries, to log. Called inside the use case's
// transaction, the entry commits with the change it records, or neither
// does. Callers: webhooks.Endpoints (create, update, delete, rotate),
// importsessions.Service (create, revoke), jobs.Reader (rows exports).
func Record(ctx context.Context, log ports.AuditLog, p identity.Principal, action, target string, now time.Time) error {
	e := identity.AuditBy(p, identity.ClientOf(ctx), action, target, now)
	e.ID = id.New("aud")
	if err := log.Record(ctx, e); err != nil {
		return fmt.Errorf("record %s: %w", action, err)
	}
	return nil
}
