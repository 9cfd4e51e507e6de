package lists

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/ports"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var caller = identity.Principal{Method: identity.ByAPIKey, OrgID: "org_1", KeyID: "key_1"}

type buffer struct{ bytes.Buffer }

func (*buffer) Close() error { return nil }

func values(vs ...string) Values {
	return func() (string, error) {
		if len(vs) == 0 {
			return "", io.EOF
		}
		v := vs[0]
		vs = vs[1:]
		return v, nil
	}
}

type fixture struct {
	svc     *Service
	store   *mocks.Lists
	blobs   *mocks.BlobStore
	staging *mocks.Staging
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	f := fixture{store: mocks.NewLists(t), blobs: mocks.NewBlobStore(t), staging: mocks.NewStaging(t)}
	clock := mocks.NewClock(t)
	clock.EXPECT().Now().Return(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)).Maybe()
	f.svc = NewService(f.store, f.blobs, f.staging, clock)
	return f
}

func TestCreate_storesTheValuesSortedAndCounted(t *testing.T) {
	f := newFixture(t)
	var blob buffer
	var stored schema.List
	f.blobs.EXPECT().Create(mock.Anything, mock.MatchedBy(func(k string) bool { return strings.HasPrefix(k, "org/org_1/lists/") })).Return(&blob, nil).Once()
	f.store.EXPECT().Create(mock.Anything, mock.Anything).Run(func(_ context.Context, l schema.List) { stored = l }).Return(nil).Once()
	l, err := f.svc.Create(context.Background(), caller, "  SKUs ", values("b-2\r", "", "a-1", "  ", "c-3", "a-1"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "SKUs" || l.OrgID != "org_1" || stored.ID != l.ID || l.Count != 3 { // three distinct values: blanks skipped, the repeated one counted once
		t.Fatalf("list %+v, stored %+v", l, stored)
	}
	for _, v := range []string{"a-1", "b-2", "c-3"} {
		if !bytes.Contains(blob.Bytes(), []byte(v)) {
			t.Fatalf("the stored values lack %q: %q", v, blob.Bytes())
		}
	}
	if a, b, c := bytes.Index(blob.Bytes(), []byte("a-1")), bytes.Index(blob.Bytes(), []byte("b-2")), bytes.Index(blob.Bytes(), []byte("c-3")); a > b || b > c {
		t.Fatalf("the stored values are not sorted: %q", blob.Bytes())
	}
	if bytes.Contains(blob.Bytes(), []byte("\r")) {
		t.Fatalf("a carriage return was kept: %q", blob.Bytes())
	}
}

func TestCreate_refusesBadNamesAndValues(t *testing.T) {
	f := newFixture(t)
	for name, tc := range map[string]struct {
		name   string
		values Values
	}{
		"blank name":   {" ", values("a")},
		"long name":    {strings.Repeat("n", 201), values("a")},
		"long value":   {"ok", values("a", strings.Repeat("v", MaxValueBytes+1))},
		"line break":   {"ok", values("a\nb")},
		"not UTF-8":    {"ok", values("a\xff")},
		"reader fails": {"ok", func() (string, error) { return "", errors.New("connection reset") }},
	} {
		_, err := f.svc.Create(context.Background(), caller, tc.name, tc.values)
		if err == nil || (name != "reader fails" && !errors.Is(err, domain.ErrInvalid)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCreate_removesTheValuesWhenTheListIsNotStored(t *testing.T) {
	f := newFixture(t)
	f.blobs.EXPECT().Create(mock.Anything, mock.Anything).Return(&buffer{}, nil).Once()
	f.store.EXPECT().Create(mock.Anything, mock.Anything).Return(errors.New("disk full")).Once()
	f.blobs.EXPECT().Delete(mock.Anything, mock.Anything).Return(nil).Once()
	if _, err := f.svc.Create(context.Background(), caller, "ok", values("a")); err == nil {
		t.Fatal("a list the store refused was answered as created")
	}
}

func TestOpen_aMissingListFailsTheJob(t *testing.T) {
	f := newFixture(t)
	f.store.EXPECT().Get(mock.Anything, "org_1", "lst_gone").Return(schema.List{}, domain.NotFound("list")).Once()
	_, _, err := f.svc.Open(context.Background(), "org_1", []string{"lst_gone"})
	var failure *normalize.Failure
	if !errors.As(err, &failure) || failure.Code != domain.CodeInvalidSchema {
		t.Fatalf("open a missing list: %v", err)
	}
}

func TestGetListDelete_areTheOrganizations(t *testing.T) {
	f := newFixture(t)
	f.store.EXPECT().Get(mock.Anything, "org_1", "lst_1").Return(schema.List{ID: "lst_1"}, nil).Once()
	if l, err := f.svc.Get(context.Background(), caller, "lst_1"); err != nil || l.ID != "lst_1" {
		t.Fatalf("get %+v %v", l, err)
	}
	f.store.EXPECT().List(mock.Anything, "org_1", ports.Page{Limit: 5}).Return(nil, "", nil).Once()
	if _, _, err := f.svc.List(context.Background(), caller, ports.Page{Limit: 5}); err != nil {
		t.Fatal(err)
	}
	f.store.EXPECT().Delete(mock.Anything, "org_1", "lst_1").Return(nil).Once()
	f.blobs.EXPECT().Delete(mock.Anything, Key("org_1", "lst_1")).Return(nil).Once()
	if err := f.svc.Delete(context.Background(), caller, "lst_1"); err != nil {
		t.Fatal(err)
	}
	f.store.EXPECT().Delete(mock.Anything, "org_1", "lst_busy").Return(domain.Errorf(domain.ErrConflict, domain.CodeConflict, "in use")).Once()
	if err := f.svc.Delete(context.Background(), caller, "lst_busy"); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("delete a list in use: %v", err)
	}
}
