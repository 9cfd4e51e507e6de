package destinations

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// Service manages an organization's destinations and their deliveries.
type Service struct {
	cfg          Config
	destinations ports.Destinations
	pushes       ports.Pushes
	jobs         ports.Jobs
	queue        ports.PushQueue
	sealer       ports.Sealer
	writer       ports.DestinationWriter
	tx           ports.Transactor
	clock        ports.Clock
	audit        ports.AuditLog
}

// NewService returns the management of destinations.
func NewService(cfg Config, destinations ports.Destinations, pushes ports.Pushes, jobs ports.Jobs, queue ports.PushQueue, sealer ports.Sealer,
	writer ports.DestinationWriter, tx ports.Transactor, clock ports.Clock, log ports.AuditLog) *Service {
	return &Service{cfg: cfg, destinations: destinations, pushes: pushes, jobs: jobs, queue: queue, sealer: sealer, writer: writer, tx: tx, clock: clock,
		audit: log}
}

// maxPerOrg is MaxPerOrg's default.
const maxPerOrg = 20

// Input is a new destination as the client sent it.
type Input struct {
	Name   string
	Type   string
	Config map[string]any
}

// Created is a new destination, with the secret the caller shows once
// when the service made it (an http destination's signing secret).
type Created struct {
	destination.Destination
	SigningSecret string
}

// Create checks and adds a destination; its secrets are sealed before
// they are stored.
func (s *Service) Create(ctx context.Context, p identity.Principal, in Input) (Created, error) {
	if err := destination.CanManage(p); err != nil {
		return Created{}, err
	}
	name, err := destination.ParseName(in.Name)
	if err != nil {
		return Created{}, err
	}
	typ, err := destination.ParseType(in.Type)
	if err != nil {
		return Created{}, err
	}
	parsed, err := destination.Parse(typ, in.Config, s.cfg.AllowPrivate)
	if err != nil {
		return Created{}, err
	}
	now := s.clock.Now()
	d := destination.Destination{ID: id.New(id.Destination), OrgID: p.OrgID, Name: name, Type: typ, Config: parsed.Config, CreatedAt: now, UpdatedAt: now}
	if d.Sealed, err = s.seal(d, parsed.Secrets); err != nil {
		return Created{}, err
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		have, _, err := s.destinations.List(ctx, p.OrgID, ports.Page{Limit: cmp.Or(s.cfg.MaxPerOrg, maxPerOrg)})
		if err != nil {
			return err
		}
		if len(have) >= cmp.Or(s.cfg.MaxPerOrg, maxPerOrg) {
			return domain.Errorf(domain.ErrConflict, domain.CodeConflict, "Your organization has %d destinations, the most it may have; delete one first.", len(have))
		}
		if err := s.destinations.Create(ctx, d); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "destination.create", d.ID, d.CreatedAt)
	})
	if err != nil {
		return Created{}, fmt.Errorf("create destination: %w", err)
	}
	out := Created{Destination: d}
	if _, given := in.Config["signing_secret"]; typ == destination.HTTP && !given {
		out.SigningSecret = parsed.Secrets["signing_secret"]
	}
	return out, nil
}

// seal seals a destination's secrets, bound to its organization and id.
func (s *Service) seal(d destination.Destination, secrets map[string]string) ([]byte, error) {
	plain, err := json.Marshal(secrets)
	if err != nil {
		return nil, err
	}
	sealed, err := s.sealer.Seal(plain, d.Associated())
	if errors.Is(err, ports.ErrNoSecretKey) {
		return nil, domain.Errorf(domain.ErrConflict, domain.CodeSecretKeyRequired,
			"The service has no secret key to store a destination's credentials with; the operator sets TABNORM_SECRET_KEY.")
	}
	return sealed, err
}

// List returns the organization's destinations, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, page ports.Page) ([]destination.Destination, string, error) {
	if err := destination.CanManage(p); err != nil {
		return nil, "", err
	}
	return s.destinations.List(ctx, p.OrgID, page)
}

// Get returns one of the organization's destinations.
func (s *Service) Get(ctx context.Context, p identity.Principal, destinationID string) (destination.Destination, error) {
	if err := destination.CanManage(p); err != nil {
		return destination.Destination{}, err
	}
	return s.destinations.Get(ctx, p.OrgID, destinationID)
}

// Patch is a change of a destination: a new name, or new settings (all
// of them, secrets included: a secret is never read back to merge).
type Patch struct {
	Name   *string
	Config map[string]any // nil: unchanged
}

// Update changes a destination's name or settings; its type stays.
func (s *Service) Update(ctx context.Context, p identity.Principal, destinationID string, in Patch) (destination.Destination, error) {
	if err := destination.CanManage(p); err != nil {
		return destination.Destination{}, err
	}
	var name string
	var err error
	if in.Name != nil {
		if name, err = destination.ParseName(*in.Name); err != nil {
			return destination.Destination{}, err
		}
	}
	now := s.clock.Now()
	var out destination.Destination
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if out, err = s.update(ctx, p.OrgID, destinationID, name, in, now); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "destination.update", destinationID, now)
	})
	return out, err
}

func (s *Service) update(ctx context.Context, orgID, destinationID, name string, in Patch, now time.Time) (destination.Destination, error) {
	return s.destinations.Update(ctx, orgID, destinationID, func(d *destination.Destination) error {
		if in.Name != nil {
			d.Name = name
		}
		if in.Config != nil {
			parsed, err := destination.Parse(d.Type, in.Config, s.cfg.AllowPrivate)
			if err != nil {
				return err
			}
			if d.Sealed, err = s.seal(*d, parsed.Secrets); err != nil {
				return err
			}
			d.Config = maps.Clone(parsed.Config)
		}
		d.UpdatedAt = now
		return nil
	})
}

// Delete removes a destination and its deliveries; rows it received stay
// where they are.
func (s *Service) Delete(ctx context.Context, p identity.Principal, destinationID string) error {
	if err := destination.CanManage(p); err != nil {
		return err
	}
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.destinations.Delete(ctx, p.OrgID, destinationID); err != nil {
			return err
		}
		return audit.Record(ctx, s.audit, p, "destination.delete", destinationID, s.clock.Now())
	})
}

// TestResult is the outcome of a test of a destination.
type TestResult struct {
	OK    bool
	Error string // why it failed, safe to show
}

// Test connects to the destination and proves it takes writes.
func (s *Service) Test(ctx context.Context, p identity.Principal, destinationID string) (TestResult, error) {
	if err := destination.CanManage(p); err != nil {
		return TestResult{}, err
	}
	d, err := s.destinations.Get(ctx, p.OrgID, destinationID)
	if err != nil {
		return TestResult{}, err
	}
	t, err := open(s.sealer, d)
	if err != nil {
		return TestResult{Error: err.Error()}, nil
	}
	if err := s.writer.Check(ctx, t); err != nil {
		return TestResult{Error: err.Error()}, nil
	}
	return TestResult{OK: true}, nil
}

// open opens a destination's secrets.
func open(sealer ports.Sealer, d destination.Destination) (destination.Target, error) {
	plain, err := sealer.Open(d.Sealed, d.Associated())
	if err != nil {
		return destination.Target{}, errors.New("the destination's credentials do not open with the service's secret keys; set them again")
	}
	t := destination.Target{Destination: d, Secrets: map[string]string{}}
	if err := json.Unmarshal(plain, &t.Secrets); err != nil {
		return destination.Target{}, errors.New("the destination's credentials are unreadable; set them again")
	}
	return t, nil
}

// JobDeliveries returns a job's deliveries: where its rows went, or are
// going.
func (s *Service) JobDeliveries(ctx context.Context, p identity.Principal, jobID string) ([]destination.Delivery, error) {
	if err := destination.CanManage(p); err != nil {
		return nil, err
	}
	if _, err := s.jobs.Get(ctx, p.OrgID, jobID); err != nil {
		return nil, err
	}
	return s.pushes.OfJob(ctx, p.OrgID, jobID)
}

// Recent returns a destination's deliveries, newest first.
func (s *Service) Recent(ctx context.Context, p identity.Principal, destinationID string, page ports.Page) ([]destination.Delivery, string, error) {
	if _, err := s.Get(ctx, p, destinationID); err != nil {
		return nil, "", err
	}
	return s.pushes.Recent(ctx, p.OrgID, destinationID, page)
}

// Retry starts a new round of attempts of a job's delivery to a
// destination that failed (or was delivered: the attempt replaces what
// it wrote).
func (s *Service) Retry(ctx context.Context, p identity.Principal, jobID, destinationID string) (destination.Delivery, error) {
	if err := destination.CanManage(p); err != nil {
		return destination.Delivery{}, err
	}
	var out destination.Delivery
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		list, err := s.pushes.OfJob(ctx, p.OrgID, jobID)
		if err != nil {
			return err
		}
		for _, d := range list {
			if d.DestinationID != destinationID {
				continue
			}
			now := s.clock.Now()
			if out, err = s.pushes.Update(ctx, p.OrgID, d.ID, func(d *destination.Delivery) error { return d.Retry(now) }); err != nil {
				return err
			}
			return s.queue.EnqueuePush(ctx, out.OrgID, out.ID, out.Attempts+1, now)
		}
		return domain.NotFound("delivery")
	})
	return out, err
}
