package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/client"
	"github.com/tabnorm/tabnorm/domain"
)

// The remote commands (jobs, schemas, connect, login) call a tabnorm
// server through the Go SDK, with TABNORM_API_URL and TABNORM_API_KEY or
// what `tabnorm login` stored in the user's config directory.
func newRemoteCmds() []*cobra.Command {
	return []*cobra.Command{newLoginCmd(), newJobsCmd(), newSchemasCmd(), newConnectCmd(), newWebhooksCmd(), newImportSessionsCmd(), newDestinationsCmd(), newHooksCmd()}
}

// remoteConfig is the file `tabnorm login` writes (mode 0600).
type remoteConfig struct {
	URL string `json:"url"`
	Key string `json:"key"`
}

func remoteConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the config directory: %w", err)
	}
	return filepath.Join(dir, "tabnorm", "client.json"), nil
}

// newClient builds the SDK client: the variables win over the stored login.
func newClient() (*client.Client, error) {
	cfg := remoteConfig{URL: os.Getenv("TABNORM_API_URL"), Key: os.Getenv("TABNORM_API_KEY")}
	if cfg.URL == "" || cfg.Key == "" {
		if path, err := remoteConfigPath(); err == nil {
			if raw, err := os.ReadFile(path); err == nil {
				var stored remoteConfig
				if err := json.Unmarshal(raw, &stored); err != nil {
					return nil, fmt.Errorf("read %s: %w", path, err)
				}
				cfg.URL = cmpOr(cfg.URL, stored.URL)
				cfg.Key = cmpOr(cfg.Key, stored.Key)
			}
		}
	}
	if cfg.URL == "" || cfg.Key == "" {
		return nil, usage(errors.New("no server: set TABNORM_API_URL and TABNORM_API_KEY, or run `tabnorm login`"))
	}
	return client.New(cfg.URL, cfg.Key), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func newLoginCmd() *cobra.Command {
	var url, key string
	cmd := &cobra.Command{
		Use:   "login --url URL [--key KEY]",
		Short: "Store the server and API key the remote commands use (the key is read from stdin without --key)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if key == "" {
				raw, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 4096))
				if err != nil {
					return err
				}
				key = strings.TrimSpace(string(raw))
			}
			if key == "" {
				return usage(errors.New("no API key: pass --key or send it on stdin"))
			}
			// Check both before storing them.
			c := client.New(url, key)
			for _, err := range c.Jobs(cmd.Context(), client.ListParams{PageSize: 1}) {
				if err != nil && !client.IsCode(err, string(domain.CodeForbiddenEntitlementMissing)) {
					return err
				}
				break
			}
			path, err := remoteConfigPath()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			raw, _ := json.Marshal(remoteConfig{URL: url, Key: key})
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				return err
			}
			if err := os.Chmod(path, 0o600); err != nil { // an older file keeps its mode otherwise
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s; stored in %s\n", url, path)
			return err
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the server, e.g. https://tabnorm.example.com (required)")
	cmd.Flags().StringVar(&key, "key", "", "the API key (default: read from stdin)")
	_ = cmd.MarkFlagRequired("url")
	return cmd
}

// jsonArg is a JSON document given inline or as a file name.
func jsonArg(name, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	raw := []byte(v)
	if t := strings.TrimSpace(v); !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		var err error
		if raw, err = os.ReadFile(v); err != nil {
			return nil, usage(fmt.Errorf("--%s: %w", name, err))
		}
	}
	if !json.Valid(raw) {
		return nil, usage(fmt.Errorf("--%s is not valid JSON", name))
	}
	return raw, nil
}

// printRaw prints an API object as the server sent it (--json), else
// text, either made safe for a terminal (terminal.go).
func printRaw(cmd *cobra.Command, asJSON bool, raw json.RawMessage, text string) error {
	if asJSON {
		_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\n", safeJSON(raw))
		return err
	}
	_, err := fmt.Fprintln(cmd.OutOrStdout(), safeText(text))
	return err
}

func jobLine(j *client.Job) string {
	line := fmt.Sprintf("%s\t%s\t%s", j.ID, j.Status, j.Mode)
	switch {
	case j.Result != nil:
		line += fmt.Sprintf("\t%d rows, %d rejected, %d issues", j.Result.RowCount, j.Result.RejectedCount, j.Result.IssueCount)
	case j.Error != nil:
		line += "\t" + j.Error.Code + ": " + j.Error.Message
	default:
		line += fmt.Sprintf("\t%d rows read", j.Progress.RowsRead)
	}
	return line
}

// isTerminal reports whether w is a terminal (progress bars) rather than
// a file or pipe (a line per state change). A writer that is not an
// *os.File may say so itself with a Terminal method (a wrapped stderr).
func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ Terminal() bool }); ok {
		return t.Terminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// bar redraws a one-line progress bar at share (0 to 1) of its width.
func bar(w io.Writer, label string, share float64, extra string) {
	const width = 30
	share = min(max(share, 0), 1)
	filled := int(share * width)
	fmt.Fprintf(w, "\r%-8s [%s%s] %3d%% %s", label, strings.Repeat("#", filled), strings.Repeat(".", width-filled), int(share*100), extra)
}

var errJobNotSucceeded = errors.New("job did not succeed")

// follow waits for a job, drawing a bar on a terminal, else printing a line
// per state change; a job that did not succeed exits 1. With untilReview a
// job that stops for its review ends the wait there (exit 0): it waits for
// a person. A confirmed job's events replay its review, so confirm --wait
// follows past it.
func follow(ctx context.Context, cmd *cobra.Command, c *client.Client, id string, asJSON, untilReview bool) error {
	errOut := cmd.ErrOrStderr()
	tty := isTerminal(errOut)
	status := ""
	var end *client.Job
	for ev, err := range c.Follow(ctx, id) {
		if err != nil {
			return err
		}
		if tty { // every event carries the job's progress; a succeeded job's is 100 %
			p := ev.Progress
			bar(errOut, "job", p.Percent/100, fmt.Sprintf("%d read, %d valid, %d rejected", p.RowsRead, p.RowsValid, p.RowsRejected))
		}
		if ev.Status != "" && ev.Status != status {
			status = ev.Status
			if tty {
				fmt.Fprintln(errOut)
			}
			fmt.Fprintf(errOut, "%s %s\n", id, safeText(status)) // on stderr: stdout stays the result
		}
		if ev.Terminal() {
			end = ev.Job
		}
		if untilReview && ev.Kind == "job.awaiting_review" {
			j := ev.Job
			if j == nil {
				var err error
				if j, err = c.GetJob(ctx, id); err != nil {
					return err
				}
			}
			return printRaw(cmd, asJSON, j.Raw, jobLine(j))
		}
	}
	if end == nil {
		var err error
		if end, err = c.GetJob(ctx, id); err != nil {
			return err
		}
	}
	if err := printRaw(cmd, asJSON, end.Raw, jobLine(end)); err != nil {
		return err
	}
	if end.Status != "succeeded" {
		return &exitError{code: 1, err: fmt.Errorf("%w: %s", errJobNotSucceeded, jobLine(end))}
	}
	return nil
}
