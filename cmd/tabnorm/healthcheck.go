package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// newHealthcheckCmd is the container's HEALTHCHECK: the image has no shell,
// curl or wget (a static binary on a distroless base), so the binary
// probes itself.
func newHealthcheckCmd() *cobra.Command {
	var target string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck [--url URL]",
		Short: "Exit 0 if the local server's /readyz answers 200, else 1 (for container health checks)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				cfg, err := loadConfig()
				if err != nil {
					return err
				}
				target = "http://" + loopback(cfg.HTTP.Addr) + "/readyz"
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
			if err != nil {
				return usage(fmt.Errorf("--url: %w", err))
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("%s: %w", target, err)
			}
			defer func() { _ = res.Body.Close() }()
			body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("%s: %d %s", target, res.StatusCode, strings.TrimSpace(string(body)))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ready")
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "url", "", "readiness URL (default: /readyz on TABNORM_HTTP_ADDR's port, on loopback)")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "give up after this long")
	return cmd
}

// loopback turns a listen address (":8080", "0.0.0.0:8080", "[::]:8080")
// into one to connect to on this machine.
func loopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
