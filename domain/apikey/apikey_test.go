package apikey

import (
	"strings"
	"testing"
	"time"
)

func TestGenerate_validatesAndHasTheFormat(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		k := Generate()
		if len(k) != Length || !strings.HasPrefix(k, Prefix) {
			t.Fatalf("bad shape %q", k)
		}
		if err := Validate(k); err != nil {
			t.Fatalf("fresh key %q does not validate: %v", k, err)
		}
		if seen[k] {
			t.Fatal("repeated key")
		}
		seen[k] = true
	}
}

func TestValidate_rejects(t *testing.T) {
	t.Parallel()
	good := Generate()
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	cases := map[string]string{
		"empty":        "",
		"wrong prefix": "svc_test_" + good[len(Prefix):],
		"short":        good[:Length-1],
		"long":         good + "x",
		"bad checksum": flip(good, Length-1),
		"secret typo":  flip(good, len(Prefix)+3),
		"non-base62":   good[:len(Prefix)] + "-" + good[len(Prefix)+1:],
		"other token":  "ghp_" + strings.Repeat("a", 36),
	}
	for name, key := range cases {
		if err := Validate(key); err != ErrMalformed {
			t.Errorf("%s: Validate(%q) = %v, want ErrMalformed", name, key, err)
		}
	}
}

func TestKey_revokeAndLastUsed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	var k Key
	if !k.LastUsedStale(now) {
		t.Fatal("never-used key not stale")
	}
	used := now.Add(-30 * time.Second)
	k.LastUsedAt = &used
	if k.LastUsedStale(now) {
		t.Fatal("key used 30 s ago is stale")
	}
	k.Revoke(now)
	first := *k.RevokedAt
	k.Revoke(now.Add(time.Hour))
	if !k.Revoked() || !k.RevokedAt.Equal(first) {
		t.Fatal("second revoke changed the time")
	}
}

func FuzzValidate(f *testing.F) {
	f.Add(Generate())
	f.Add("svc_live_")
	f.Add("svc_live_00000000000000000000000000000000000000")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		err := Validate(s)
		if err == nil {
			// Whatever validates must have the exact shape and checksum.
			if len(s) != Length || !strings.HasPrefix(s, Prefix) || checksum([]byte(s[len(Prefix):len(Prefix)+secretLen])) != s[len(Prefix)+secretLen:] {
				t.Fatalf("accepted %q", s)
			}
			_ = HashOf(s)
			_ = Last4(s)
		}
	})
}
