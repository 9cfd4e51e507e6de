// Package audit is the reading side of the audit log: an organization's
// admins list it by filters and export it as JSON lines, and the purger
// deletes entries past their retention. Use cases write entries through
// ports.AuditLog themselves, in the transaction of what they record.
package audit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Service reads and purges the audit log.
type Service struct {
	log       ports.AuditLog
	clock     ports.Clock
	retention time.Duration
	logger    *slog.Logger
}

// Config is the audit log's setting: how long entries are kept (0: for ever).
type Config struct {
	Retention time.Duration
}

// NewService returns the audit service.
func NewService(cfg Config, log ports.AuditLog, clock ports.Clock, logger *slog.Logger) *Service {
	return &Service{log: log, clock: clock, retention: cfg.Retention, logger: logger}
}

// CheckFilter refuses a time range that ends before it starts.
func CheckFilter(f identity.AuditFilter) error {
	if f.Since != nil && f.Until != nil && !f.Until.After(*f.Since) {
		return domain.Invalid("until must be after since.")
	}
	return nil
}

// List returns a page of the principal's organization's entries matching
// f, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, f identity.AuditFilter, page ports.Page) ([]identity.AuditEntry, string, error) {
	if err := p.CanReadAudit(); err != nil {
		return nil, "", err
	}
	if err := CheckFilter(f); err != nil {
		return nil, "", err
	}
	return s.log.List(ctx, p.OrgID, f, page)
}

// exportPage is how many entries an export reads at a time.
const exportPage = 500

// Export calls write with every entry matching f, newest first, a page at
// a time (so an export of any size holds one page in memory). Unless it
// only looks (a HEAD: nothing leaves the server), the export is recorded
// when it ends, whether it finished or broke off: who took a copy of the
// log is in it, from the next read on. Recording after, not before, keeps
// an export from containing itself, so a HEAD and the GET after it agree.
func (s *Service) Export(ctx context.Context, p identity.Principal, f identity.AuditFilter, c identity.Client, look bool, write func(identity.AuditEntry) error) error {
	if err := p.CanReadAudit(); err != nil {
		return err
	}
	if err := CheckFilter(f); err != nil {
		return err
	}
	err := s.each(ctx, p.OrgID, f, write)
	if look {
		return err
	}
	e := identity.AuditBy(p, c, "audit.export", "", s.clock.Now())
	e.ID = id.New("aud")
	if rerr := s.log.Record(context.WithoutCancel(ctx), e); rerr != nil {
		return errors.Join(err, fmt.Errorf("record the export: %w", rerr))
	}
	return err
}

// ExportForOperator writes an organization's entries from the operator's
// command line, which needs no principal.
func (s *Service) ExportForOperator(ctx context.Context, orgID string, f identity.AuditFilter, write func(identity.AuditEntry) error) error {
	if err := CheckFilter(f); err != nil {
		return err
	}
	return s.each(ctx, orgID, f, write)
}

func (s *Service) each(ctx context.Context, orgID string, f identity.AuditFilter, write func(identity.AuditEntry) error) error {
	page := ports.Page{Limit: exportPage}
	for {
		entries, next, err := s.log.List(ctx, orgID, f, page)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := write(e); err != nil {
				return err
			}
		}
		if next == "" {
			return nil
		}
		page.Cursor = next
	}
}

var _ ports.Purger = (*Service)(nil)

// Purge deletes the entries older than the retention: the only delete the
// audit log knows. The queue's periodic job runs it with the jobs' purgers.
func (s *Service) Purge(ctx context.Context) (int, error) {
	if s.retention <= 0 {
		return 0, nil
	}
	n, err := s.log.Purge(ctx, s.clock.Now().Add(-s.retention))
	if err != nil {
		return 0, fmt.Errorf("purge the audit log: %w", err)
	}
	if n > 0 {
		s.logger.InfoContext(ctx, "purged audit entries past their retention", "entries", n)
	}
	return n, nil
}
