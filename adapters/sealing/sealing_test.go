package sealing_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sealing"
	"github.com/tabnorm/tabnorm/ports"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, sealing.KeyLen)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestBox_sealsAndOpens(t *testing.T) {
	b, err := sealing.New(newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("postgres://loader:hunter2@db.example.com/warehouse")
	ad := []byte("org_1/dst_1")
	sealed, err := b.Seal(secret, ad)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatal("the sealed value holds the secret in the clear")
	}
	again, _ := b.Seal(secret, ad)
	if bytes.Equal(sealed, again) {
		t.Fatal("two seals of one secret are equal: the nonce is not fresh")
	}
	plain, err := b.Open(sealed, ad)
	if err != nil || !bytes.Equal(plain, secret) {
		t.Fatalf("Open = %q, %v", plain, err)
	}
}

func TestBox_refusesWhatDoesNotOpen(t *testing.T) {
	b, _ := sealing.New(newKey(t))
	other, _ := sealing.New(newKey(t))
	sealed, _ := b.Seal([]byte("s3cret"), []byte("org_1/dst_1"))
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	for name, tc := range map[string]struct {
		box    *sealing.Box
		sealed []byte
		ad     string
	}{
		"another record":  {b, sealed, "org_2/dst_1"},
		"changed byte":    {b, flipped, "org_1/dst_1"},
		"another key":     {other, sealed, "org_1/dst_1"},
		"truncated":       {b, sealed[:10], "org_1/dst_1"},
		"empty":           {b, nil, "org_1/dst_1"},
		"unknown version": {b, append([]byte{9}, sealed[1:]...), "org_1/dst_1"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := tc.box.Open(tc.sealed, []byte(tc.ad)); !errors.Is(err, ports.ErrSealBroken) {
				t.Fatalf("Open error = %v, want ErrSealBroken", err)
			}
		})
	}
}

func TestBox_rotation(t *testing.T) {
	oldKey, newer := newKey(t), newKey(t)
	before, _ := sealing.New(oldKey)
	sealed, _ := before.Seal([]byte("s3cret"), nil)
	after, err := sealing.New(newer, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := after.Open(sealed, nil); err != nil || string(plain) != "s3cret" {
		t.Fatalf("a value sealed under the old key: %q, %v", plain, err)
	}
	resealed, _ := after.Seal([]byte("s3cret"), nil)
	if _, err := before.Open(resealed, nil); !errors.Is(err, ports.ErrSealBroken) {
		t.Fatalf("the newest key must seal: the old box opened it (%v)", err)
	}
}

func TestParseKeys(t *testing.T) {
	k := newKey(t)
	keys, err := sealing.ParseKeys(" " + base64.StdEncoding.EncodeToString(k) + " , " + base64.RawURLEncoding.EncodeToString(newKey(t)))
	if err != nil || len(keys) != 2 || !bytes.Equal(keys[0], k) {
		t.Fatalf("ParseKeys = %d keys, %v", len(keys), err)
	}
	for _, bad := range []string{"", " , ", "not base64!", base64.StdEncoding.EncodeToString([]byte("short"))} {
		if _, err := sealing.ParseKeys(bad); err == nil {
			t.Errorf("ParseKeys(%q) accepted", bad)
		}
	}
	if _, err := sealing.New([]byte("short")); err == nil {
		t.Error("New accepted a short key")
	}
}

func TestUnkeyed_refuses(t *testing.T) {
	if _, err := (sealing.Unkeyed{}).Seal([]byte("x"), nil); !errors.Is(err, ports.ErrNoSecretKey) {
		t.Fatalf("Seal error = %v", err)
	}
	if _, err := (sealing.Unkeyed{}).Open([]byte("x"), nil); !errors.Is(err, ports.ErrNoSecretKey) {
		t.Fatalf("Open error = %v", err)
	}
}

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "secret.key")
	k, created, err := sealing.KeyFile(path)
	if err != nil || !created || len(k) != sealing.KeyLen {
		t.Fatalf("first KeyFile = %d bytes, created %v, %v", len(k), created, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, want 0600", info.Mode().Perm())
	}
	again, created, err := sealing.KeyFile(path)
	if err != nil || created || !bytes.Equal(again, k) {
		t.Fatalf("second KeyFile: created %v, same %v, %v", created, bytes.Equal(again, k), err)
	}
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sealing.KeyFile(path); err == nil {
		t.Fatal("a damaged key file was accepted (a new key would lose every sealed secret)")
	}
}

func TestKeyFile_concurrentStartsAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.key")
	const n = 8
	keys := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			k, _, err := sealing.KeyFile(path)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for i := range keys {
		if !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("process %d got another key", i)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d files, want the key alone", len(entries))
	}
}
