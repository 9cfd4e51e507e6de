package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestPackaging_license: the repository is Apache-2.0, and says so where a
// reader and a client look: LICENSE, the README and the OpenAPI document.
func TestPackaging_license(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"} {
		if !strings.Contains(string(license), want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "Apache-2.0") || !strings.Contains(string(readme), "(LICENSE)") {
		t.Error("README.md does not name the Apache-2.0 license and link LICENSE")
	}
	raw, err := os.ReadFile(filepath.Join(root, "adapters", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Info struct {
			License struct{ Name, Identifier string } `json:"license"`
		} `json:"info"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Info.License.Identifier != "Apache-2.0" || doc.Info.License.Name == "" {
		t.Errorf("openapi.json info.license = %+v, want the Apache-2.0 identifier and a name", doc.Info.License)
	}
}

// TestPackaging_composeWaitsForHealth: a service that another waits on as
// healthy has a healthcheck, and the tabnorm processes start only once the
// database and the S3 store answer theirs.
func TestPackaging_composeWaitsForHealth(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type service struct {
		Command     []string `yaml:"command"`
		Healthcheck *struct {
			Test    []string `yaml:"test"`
			Disable bool     `yaml:"disable"`
		} `yaml:"healthcheck"`
		DependsOn map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
	}
	var compose struct {
		Services map[string]service `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"api-1", "api-2", "worker"} {
		s, ok := compose.Services[name]
		if !ok {
			t.Fatalf("compose.yaml has no service %s", name)
		}
		for _, dep := range []string{"postgres", "s3"} {
			if got := s.DependsOn[dep].Condition; got != "service_healthy" {
				t.Errorf("%s depends on %s with condition %q, want service_healthy", name, dep, got)
			}
		}
	}
	for name, s := range compose.Services {
		for dep, d := range s.DependsOn {
			if d.Condition != "service_healthy" {
				continue
			}
			hc := compose.Services[dep].Healthcheck
			if hc == nil || hc.Disable || len(hc.Test) < 2 || hc.Test[0] != "CMD" {
				t.Errorf("%s waits for %s to be healthy, but %s has no healthcheck command", name, dep, dep)
			}
		}
	}
	// The S3 store's probe path is served only when versitygw is told it.
	s3 := compose.Services["s3"]
	if hc := s3.Healthcheck; hc != nil && !strings.Contains(strings.Join(hc.Test, " "), "/health") {
		t.Errorf("the s3 healthcheck %v does not probe /health", hc.Test)
	}
	if !strings.Contains(strings.Join(s3.Command, " "), "--health /health") {
		t.Errorf("the s3 command %v does not serve --health /health", s3.Command)
	}
}

// fakeDocker puts a `docker` first on PATH that runs script (sh).
func fakeDocker(t *testing.T, script string) []string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "docker"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestPackaging_smokeSkipsLoudly: without a Docker engine the smoke test
// of CI says SKIP in capitals and lets CI go on, unless told to require one.
func TestPackaging_smokeSkipsLoudly(t *testing.T) {
	t.Parallel()
	script := filepath.Join(repoRoot(t), ".ci", "docker", "run")
	env := fakeDocker(t, `echo "Cannot connect to the Docker daemon" >&2; exit 1`)
	cmd := exec.Command("bash", script)
	cmd.Env = slices.Concat(env, []string{"TABNORM_REQUIRE_DOCKER=false"})
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "*** SKIP docker smoke test") {
		t.Fatalf("without an engine: %v\n%s", err, out)
	}
	cmd = exec.Command("bash", script)
	cmd.Env = slices.Concat(env, []string{"TABNORM_REQUIRE_DOCKER=true"})
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("TABNORM_REQUIRE_DOCKER=true without an engine passed:\n%s", out)
	}
}

// TestPackaging_pinDigests: .ci/docker/pin writes each image's digest
// beside its tag, again on a second run, and changes nothing when a
// digest cannot be read.
func TestPackaging_pinDigests(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, ".ci", "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range []string{"Dockerfile", "compose.yaml", ".ci/docker/pin"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
		if err := os.WriteFile(filepath.Join(work, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pin := func(env []string) error {
		cmd := exec.Command("bash", filepath.Join(work, ".ci", "docker", "pin"))
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		t.Logf("pin: %s", out)
		return err
	}
	if err := pin(fakeDocker(t, "exit 1")); err == nil {
		t.Error("pin passed without any digest")
	}
	for _, f := range []string{"Dockerfile", "compose.yaml"} {
		if b, _ := os.ReadFile(filepath.Join(work, f)); string(b) != files[f] {
			t.Errorf("%s changed although no digest was read", f)
		}
	}
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	for range 2 {
		if err := pin(fakeDocker(t, `echo '"`+digest+`"'`)); err != nil {
			t.Fatal(err)
		}
	}
	dockerfile, _ := os.ReadFile(filepath.Join(work, "Dockerfile"))
	for _, want := range []string{"FROM golang:1.26-bookworm@" + digest + " AS build", "FROM gcr.io/distroless/static-debian12:nonroot@" + digest + "\n"} {
		if !strings.Contains(string(dockerfile), want) {
			t.Errorf("pinned Dockerfile lacks %q", want)
		}
	}
	compose, _ := os.ReadFile(filepath.Join(work, "compose.yaml"))
	for _, want := range []string{"image: postgres:17@" + digest + "\n", "image: versity/versitygw:v1.8.0@" + digest + "\n", "image: tabnorm:local\n"} {
		if !strings.Contains(string(compose), want) {
			t.Errorf("pinned compose.yaml lacks %q", want)
		}
	}
}
