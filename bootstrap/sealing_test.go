package bootstrap

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/ports"
)

// A secret key's value never shows in the error that refuses it.
func TestLoad_secretKeyNotEchoed(t *testing.T) {
	bad := "U0VDUkVULVZBTFVFLVRIQVQtSVMtVE9PLVNIT1JU" // 30 bytes
	_, err := Load(env(map[string]string{"TABNORM_SECRET_KEY": bad}))
	if err == nil || strings.Contains(err.Error(), bad) {
		t.Fatalf("err = %v: want a refusal that does not repeat the key", err)
	}
}

func TestNewSealer(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	dir := t.TempDir()
	sqlite := Config{}
	sqlite.Database.URL = "sqlite://" + filepath.Join(dir, "tabnorm.db")

	first, err := newSealer(sqlite, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "secret.key")); err != nil {
		t.Fatalf("no key file beside the database: %v", err)
	}
	if !strings.Contains(logs.String(), "generated the key") {
		t.Fatalf("no log line says a key was generated: %q", logs.String())
	}
	sealed, err := first.Seal([]byte("s3cret"), []byte("org_1"))
	if err != nil {
		t.Fatal(err)
	}
	// A restart reads the same key: what was sealed still opens.
	second, err := newSealer(sqlite, log)
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := second.Open(sealed, []byte("org_1")); err != nil || string(plain) != "s3cret" {
		t.Fatalf("after a restart: %q, %v", plain, err)
	}

	pg := Config{}
	pg.Database.URL = "postgres://u@db:5432/tabnorm"
	unkeyed, err := newSealer(pg, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unkeyed.Seal([]byte("x"), nil); !errors.Is(err, ports.ErrNoSecretKey) {
		t.Fatalf("PostgreSQL without a key sealed: %v", err)
	}

	key := make([]byte, 32)
	_, _ = rand.Read(key)
	keyed, err := Load(env(map[string]string{"TABNORM_DATABASE_URL": pg.Database.URL, "TABNORM_SECRET_KEY": base64.StdEncoding.EncodeToString(key)}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSealer(keyed, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Seal([]byte("x"), nil); err != nil {
		t.Fatalf("PostgreSQL with a key: %v", err)
	}
	if strings.Contains(logs.String(), base64.StdEncoding.EncodeToString(key)) {
		t.Fatal("the key was logged")
	}
}
