package orgshare

import "testing"

func TestInFlight(t *testing.T) {
	t.Parallel()
	f := New(2)
	for range 2 {
		if !f.Take("org_a") {
			t.Fatal("an organization could not take its share")
		}
	}
	if f.Take("org_a") {
		t.Fatal("an organization took more than its share")
	}
	if !f.Take("org_b") {
		t.Fatal("another organization waited behind the first")
	}
	f.Give("org_a")
	if !f.Take("org_a") {
		t.Fatal("a given-back attempt was not free again")
	}
	f.Give("org_a")
	f.Give("org_a")
	f.Give("org_b")
	if len(f.held) != 0 {
		t.Fatalf("counts left behind: %v", f.held)
	}
}
