package identity

import (
	"errors"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

func TestParseProducts(t *testing.T) {
	t.Parallel()
	got, err := ParseProducts("normalize, connect,normalize")
	if err != nil || len(got) != 2 || got[0] != Normalize || got[1] != Connect {
		t.Fatalf("ParseProducts = %v, %v", got, err)
	}
	if _, err := ParseProducts("normalize,billing"); !errors.Is(err, domain.ErrInvalid) {
		t.Fatalf("unknown product: err = %v, want ErrInvalid", err)
	}
}

func TestPassword_roundTrip(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := CheckPassword(h, "correct horse battery"); !ok || err != nil {
		t.Fatalf("right password rejected: %v %v", ok, err)
	}
	if ok, _ := CheckPassword(h, "correct horse batterY"); ok {
		t.Fatal("wrong password accepted")
	}
	if _, err := HashPassword("short"); err == nil {
		t.Fatal("short password accepted")
	}
	if _, err := CheckPassword("$bcrypt$x", "x"); err == nil {
		t.Fatal("malformed hash accepted")
	}
}

func TestNormalizeEmail(t *testing.T) {
	t.Parallel()
	if got, err := NormalizeEmail("  Admin@LocalHost "); err != nil || got != "admin@localhost" {
		t.Fatalf("got %q %v", got, err)
	}
	for _, bad := range []string{"", "nobody", "a b@c.d", "Bob <bob@x.io>"} {
		if _, err := NormalizeEmail(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
