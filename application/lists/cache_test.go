package lists

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// stageCopies makes the staging mock copy a list of n values into the
// folder it is given, as a remote store's staging does, once per call.
func stageCopies(t *testing.T, f fixture, listID string, n int, times int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s-%08d\n", listID, i)
	}
	f.store.EXPECT().Get(mock.Anything, "org_1", listID).Return(schema.List{ID: listID}, nil)
	f.staging.EXPECT().Stage(mock.Anything, Key("org_1", listID), mock.Anything).RunAndReturn(func(_ context.Context, _ string, dir string) (string, error) {
		p := filepath.Join(dir, listID+"-copy")
		return p, os.WriteFile(p, []byte(b.String()), 0o600)
	}).Times(times)
}

// TestOpen_oneIndexPerList: twelve checks of the same list at once stage
// and index it once, and all look up in the same index: the memory of a
// list does not grow with the requests that read it.
func TestOpen_oneIndexPerList(t *testing.T) {
	f := newFixture(t)
	stageCopies(t, f, "lst_a", 50_000, 1)
	var wg sync.WaitGroup
	got := make([]*Index, 12)
	releases := make([]func(), 12)
	for i := range got {
		wg.Go(func() {
			lists, release, err := f.svc.Open(context.Background(), "org_1", []string{"lst_a"})
			if err != nil {
				t.Error(err)
				return
			}
			got[i], releases[i] = lists["lst_a"].(*Index), release
			if ok, err := got[i].Contains("lst_a-00049999"); !ok || err != nil {
				t.Errorf("a value of the list is not found: %v", err)
			}
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("open %d has an index of its own", i)
		}
		releases[i]()
	}
	if n, bytes := f.svc.cache.stats(); n != 1 || bytes <= 0 {
		t.Fatalf("the cache holds %d lists, %d bytes; want the one list, kept for the next user", n, bytes)
	}
}

// TestOpen_idleListsCloseOverTheBound: past the cache's bytes, a list is
// read from its file rather than memory, the least recently used idle
// list is closed and its staged copy removed; a list in use is never
// closed, and a list opened again after it was closed is staged again.
func TestOpen_idleListsCloseOverTheBound(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	stageCopies(t, f, "lst_a", 20_000, 2)
	stageCopies(t, f, "lst_b", 20_000, 1)
	a, releaseA, err := f.svc.Open(ctx, "org_1", []string{"lst_a"})
	if err != nil {
		t.Fatal(err)
	}
	_, size := f.svc.cache.stats()
	f.svc.cache.max = size / 2 // a is over the bound alone
	copyA := filepath.Join(f.svc.cache.dir, "lst_a-copy")

	b, releaseB, err := f.svc.Open(ctx, "org_1", []string{"lst_b"}) // no room left: b is read from its file
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := a["lst_a"].Contains("lst_a-00000007"); !ok || err != nil {
		t.Fatalf("a list in use was closed: %v %v", ok, err)
	}
	releaseA() // a is idle and the least recently used: closed
	if _, err := os.Stat(copyA); !os.IsNotExist(err) {
		t.Fatalf("the staged copy of a closed list is still there: %v", err)
	}
	if b["lst_b"].(*Index).data != nil {
		t.Fatal("b was read into memory past the cache's bound")
	}
	if ok, err := b["lst_b"].Contains("lst_b-00019999"); !ok || err != nil {
		t.Fatalf("b from its file: %v %v", ok, err)
	}
	releaseB()
	if n, used := f.svc.cache.stats(); n != 1 || used > f.svc.cache.max {
		t.Fatalf("%d lists, %d bytes open; want b alone, at most %d", n, used, f.svc.cache.max)
	}
	if _, releaseA, err = f.svc.Open(ctx, "org_1", []string{"lst_a"}); err != nil { // staged a second time
		t.Fatal(err)
	}
	releaseA()
}

// TestDelete_closesTheSharedIndex: a deleted list's index is closed once
// its last user is done, and its copy removed; the next open stages the
// list anew (and so fails if it is gone).
func TestDelete_closesTheSharedIndex(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	stageCopies(t, f, "lst_a", 1_000, 2)
	lists, release, err := f.svc.Open(ctx, "org_1", []string{"lst_a"})
	if err != nil {
		t.Fatal(err)
	}
	f.store.EXPECT().Delete(mock.Anything, "org_1", "lst_a").Return(nil).Once()
	f.blobs.EXPECT().Delete(mock.Anything, Key("org_1", "lst_a")).Return(nil).Once()
	if err := f.svc.Delete(ctx, caller, "lst_a"); err != nil {
		t.Fatal(err)
	}
	if ok, err := lists["lst_a"].Contains("lst_a-00000999"); !ok || err != nil {
		t.Fatalf("a user's index was closed under it: %v %v", ok, err)
	}
	release()
	if n, used := f.svc.cache.stats(); n != 0 || used != 0 {
		t.Fatalf("a deleted list stays open: %d lists, %d bytes", n, used)
	}
	if _, err := os.Stat(filepath.Join(f.svc.cache.dir, "lst_a-copy")); !os.IsNotExist(err) {
		t.Fatalf("the deleted list's copy is still there: %v", err)
	}
	_, release, err = f.svc.Open(ctx, "org_1", []string{"lst_a"})
	if err != nil {
		t.Fatal(err)
	}
	release()
}
