// Package lists manages an organization's reference lists: sets of values
// (up to ten million) that a schema's inList constraints check against,
// stored sorted as a blob and looked up by jobs in bounded memory.
package lists

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Limits of a list.
const (
	MaxValues     = 10_000_000
	MaxValueBytes = 1000
)

// Service is the reference lists use cases.
type Service struct {
	store   ports.Lists
	blobs   ports.BlobStore
	staging ports.Staging
	clock   ports.Clock
	cache   *cache
}

// NewService returns the lists service.
func NewService(store ports.Lists, blobs ports.BlobStore, staging ports.Staging, clock ports.Clock) *Service {
	return &Service{store: store, blobs: blobs, staging: staging, clock: clock, cache: newCache(CacheBytes)}
}

// Key is where a list's sorted values are stored.
func Key(orgID, listID string) string { return "org/" + orgID + "/lists/" + listID + "/values" }

// Values hands out an upload's values one at a time; io.EOF at the end.
type Values func() (string, error)

func invalidValues(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The list's values are not acceptable: " + msg,
		Fields: []domain.FieldError{{Field: "values", Message: msg}}}
}

// Create sorts the values into a stored list. Blank values are skipped;
// a value is at most 1,000 bytes of UTF-8 without line breaks.
func (s *Service) Create(ctx context.Context, p identity.Principal, name string, next Values) (schema.List, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return schema.List{}, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "A list needs a name of 1 to 200 characters.",
			Fields: []domain.FieldError{{Field: "name", Message: "must be 1 to 200 characters"}}}
	}
	dir, err := os.MkdirTemp("", "tabnorm-list-*")
	if err != nil {
		return schema.List{}, fmt.Errorf("create a list: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	srt := &sorter{dir: dir, limit: runBytes}
	defer srt.cleanup()
	if err := readValues(next, srt); err != nil {
		return schema.List{}, err
	}
	l := schema.List{ID: id.New(id.List), OrgID: p.OrgID, Name: name, CreatedAt: s.clock.Now()}
	w, err := s.blobs.Create(ctx, Key(l.OrgID, l.ID))
	if err != nil {
		return schema.List{}, err
	}
	if l.Count, err = srt.write(w); err != nil {
		_ = w.Close()
		_ = s.blobs.Delete(context.WithoutCancel(ctx), Key(l.OrgID, l.ID))
		return schema.List{}, err
	}
	if err := w.Close(); err != nil {
		return schema.List{}, fmt.Errorf("store a list: %w", err)
	}
	if err := s.store.Create(ctx, l); err != nil {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), Key(l.OrgID, l.ID))
		return schema.List{}, err
	}
	return l, nil
}

func readValues(next Values, srt *sorter) error {
	n := 0
	for {
		v, err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		v = strings.TrimSuffix(v, "\r")
		if strings.TrimSpace(v) == "" {
			continue
		}
		n++
		switch {
		case n > MaxValues:
			return invalidValues("more than %d values", MaxValues)
		case len(v) > MaxValueBytes:
			return invalidValues("value %d is longer than %d bytes", n, MaxValueBytes)
		case strings.ContainsAny(v, "\n\r") || !utf8.ValidString(v):
			return invalidValues("value %d holds a line break or is not UTF-8", n)
		}
		if err := srt.add(v); err != nil {
			return err
		}
	}
}

// Get returns a list of the principal's organization.
func (s *Service) Get(ctx context.Context, p identity.Principal, listID string) (schema.List, error) {
	return s.store.Get(ctx, p.OrgID, listID)
}

// List returns the organization's lists, newest first.
func (s *Service) List(ctx context.Context, p identity.Principal, page ports.Page) ([]schema.List, string, error) {
	return s.store.List(ctx, p.OrgID, page)
}

// Delete removes a list and its values; a conflict while an unfinished
// job uses it.
func (s *Service) Delete(ctx context.Context, p identity.Principal, listID string) error {
	if err := s.store.Delete(ctx, p.OrgID, listID); err != nil {
		return err
	}
	s.cache.forget(Key(p.OrgID, listID))
	return s.blobs.Delete(ctx, Key(p.OrgID, listID))
}

// Open opens the indexes of the lists a schema names, shared with every
// other user of the same lists in this process (cache.go); close releases
// them. A list that does not exist (any more) is the job's failure
// invalid_schema.
func (s *Service) Open(ctx context.Context, orgID string, ids []string) (map[string]normalize.ListLookup, func(), error) {
	out := map[string]normalize.ListLookup{}
	var releases []func()
	closeAll := func() {
		for _, release := range releases {
			release()
		}
	}
	for _, listID := range ids {
		if _, err := s.store.Get(ctx, orgID, listID); err != nil {
			closeAll()
			if errors.Is(err, domain.ErrNotFound) {
				return nil, nil, &normalize.Failure{Code: domain.CodeInvalidSchema, Message: "The schema checks reference list " + listID + ", which does not exist."}
			}
			return nil, nil, err
		}
		key := Key(orgID, listID)
		ix, release, err := s.cache.acquire(ctx, key, func(dir string) (string, error) { return s.staging.Stage(ctx, key, dir) })
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		releases = append(releases, release)
		out[listID] = ix
	}
	return out, closeAll, nil
}
