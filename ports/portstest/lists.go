package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
)

// Lists is the suite of ports.Lists.
func Lists(t *testing.T, open func(t *testing.T) Stores) {
	t.Helper()
	runSteps(t, open, []step[Stores]{
		{"create_then_get_in_its_organization_only", listsCreateThenGet},
		{"list_pages_newest_first", listsList},
		{"delete_is_a_conflict_while_an_unfinished_job_uses_it", listsDeleteInUse},
	})
}

func seedList(t *testing.T, s Stores, orgID string) schema.List {
	t.Helper()
	l := schema.List{ID: id.New(id.List), OrgID: orgID, Name: "skus", Count: 10_000_000, CreatedAt: now}
	ok(t, s.Lists.Create(context.Background(), l))
	return l
}

func listsCreateThenGet(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	l := seedList(t, s, org.ID)
	got, err := s.Lists.Get(context.Background(), org.ID, l.ID)
	if err != nil || got != l {
		t.Fatalf("Lists.Get = %+v, %v; want %+v", got, err, l)
	}
	_, err = s.Lists.Get(context.Background(), other.ID, l.ID)
	isKind(t, err, domain.ErrNotFound, "Lists.Get through another organization")
}

func listsList(t *testing.T, s Stores) {
	org, other := seedOrg(t, s), seedOrg(t, s)
	seedList(t, s, other.ID)
	var created []string
	for range 3 {
		created = append(created, seedList(t, s, org.ID).ID)
	}
	got := pages(t, 2, func(p ports.Page) ([]schema.List, string, error) {
		return s.Lists.List(context.Background(), org.ID, p)
	}, func(l schema.List) string { return l.ID })
	newestFirst(t, "Lists.List", got, created)
}

func listsDeleteInUse(t *testing.T, s Stores) {
	ctx := context.Background()
	org, other := seedOrg(t, s), seedOrg(t, s)
	l, unused := seedList(t, s, org.ID), seedList(t, s, org.ID)
	j := newJob(org.ID, now)
	j.Schema = []byte(`{"fields":[{"name":"sku","type":"string","constraints":{"inList":"` + l.ID + `"}}],"missingValues":[""]}`)
	ok(t, s.Jobs.Create(ctx, j))

	isKind(t, s.Lists.Delete(ctx, org.ID, l.ID), domain.ErrConflict, "Lists.Delete while a queued job uses the list")
	isKind(t, s.Lists.Delete(ctx, other.ID, unused.ID), domain.ErrNotFound, "Lists.Delete through another organization")
	ok(t, s.Lists.Delete(ctx, org.ID, unused.ID))

	_, err := s.Jobs.Update(ctx, org.ID, j.ID, func(j *job.Job) error { return j.Cancel(now.Add(time.Minute)) })
	ok(t, err)
	ok(t, s.Lists.Delete(ctx, org.ID, l.ID))
	_, err = s.Lists.Get(ctx, org.ID, l.ID)
	isKind(t, err, domain.ErrNotFound, "Lists.Get: a deleted list")
	isKind(t, s.Lists.Delete(ctx, org.ID, l.ID), domain.ErrNotFound, "Lists.Delete a second time")
}
