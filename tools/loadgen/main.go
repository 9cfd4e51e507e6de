// Command loadgen measures what a running tabnorm answers per request: for
// each route it keeps -c keep-alive clients busy for -d and reports
// requests a second, p50 and p99 latency, and errors; with -pid it adds the
// server's peak resident memory (VmHWM). It sends requests only to the
// loopback address it is given, and stops by itself after each route's
// duration. docs/bench/api.sh runs it against two builds side by side.
//
//	go run ./loadgen -url http://127.0.0.1:18080 -key svc_live_… -job job_… [-c 50] [-d 5s] [-pid N] [-json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Result is one route's measurement.
type Result struct {
	Route     string  `json:"route"`
	Requests  int     `json:"requests"`
	Errors    int     `json:"errors"`
	PerSecond float64 `json:"requests_per_second"`
	P50Millis float64 `json:"p50_ms"`
	P99Millis float64 `json:"p99_ms"`
	PeakRSSKB int64   `json:"peak_rss_kib,omitempty"`
	// UserCPUMicros and SysCPUMicros are the server's CPU time per
	// answered request while measuring (with -pid): on a machine other
	// work shares, a steadier comparison than requests a second.
	UserCPUMicros float64 `json:"server_user_cpu_us_per_request,omitempty"`
	SysCPUMicros  float64 `json:"server_sys_cpu_us_per_request,omitempty"`
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the server's base URL (loopback only)")
	key := flag.String("key", "", "API key for the /v1 routes")
	job := flag.String("job", "", "a job id for GET /v1/jobs/{id}")
	routes := flag.String("routes", "/v1/jobs/{id},/v1/jobs,/healthz", "comma-separated paths to GET")
	clients := flag.Int("c", 50, "concurrent keep-alive clients")
	duration := flag.Duration("d", 5*time.Second, "time per route")
	warmup := flag.Duration("warmup", time.Second, "unmeasured load per route before measuring")
	pid := flag.Int("pid", 0, "the server's process id, to report its peak RSS")
	asJSON := flag.Bool("json", false, "print one JSON array")
	encoding := flag.String("encoding", "", "Accept-Encoding to send (e.g. gzip, zstd); none by default")
	flag.Parse()
	if err := loopbackOnly(*base); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	if *duration <= 0 || *duration > 5*time.Minute || *clients < 1 || *clients > 1000 {
		fmt.Fprintln(os.Stderr, "loadgen: -d must be in (0, 5m] and -c in [1, 1000]")
		os.Exit(2)
	}
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns: *clients, MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients,
			IdleConnTimeout: time.Minute, DisableCompression: true,
		},
	}
	var results []Result
	for _, route := range strings.Split(*routes, ",") {
		path := strings.ReplaceAll(strings.TrimSpace(route), "{id}", *job)
		target := strings.TrimSuffix(*base, "/") + path
		run(client, target, *key, *encoding, *clients, *warmup)
		user0, sys0 := cpuTicks(*pid)
		r := run(client, target, *key, *encoding, *clients, *duration)
		r.Route = "GET " + strings.TrimSpace(route)
		if *pid > 0 {
			r.PeakRSSKB = peakRSS(*pid)
			if user1, sys1 := cpuTicks(*pid); r.Requests > 0 && user1 > 0 {
				r.UserCPUMicros = float64(user1-user0) * tickMicros / float64(r.Requests)
				r.SysCPUMicros = float64(sys1-sys0) * tickMicros / float64(r.Requests)
			}
		}
		results = append(results, r)
	}
	if *asJSON {
		if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
			os.Exit(1)
		}
		return
	}
	fmt.Printf("%-22s %10s %8s %8s %7s %12s %12s\n", "route", "req/s", "p50 ms", "p99 ms", "errors", "peak RSS MiB", "user µs/req")
	for _, r := range results {
		fmt.Printf("%-22s %10.0f %8.2f %8.2f %7d %12.1f %12.1f\n", r.Route, r.PerSecond, r.P50Millis, r.P99Millis, r.Errors, float64(r.PeakRSSKB)/1024, r.UserCPUMicros)
	}
}

// run keeps clients requests in flight against target for d.
func run(client *http.Client, target, key, encoding string, clients int, d time.Duration) Result {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      int
		wg        sync.WaitGroup
	)
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine, failed := worker(ctx, client, target, key, encoding)
			mu.Lock()
			latencies = append(latencies, mine...)
			errs += failed
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return Result{
		Requests:  len(latencies),
		Errors:    errs,
		PerSecond: float64(len(latencies)) / elapsed.Seconds(),
		P50Millis: millis(quantile(latencies, 0.50)),
		P99Millis: millis(quantile(latencies, 0.99)),
	}
}

// worker sends one request after another until ctx ends; a request that
// fails or answers other than 200 counts as an error, not a latency.
func worker(ctx context.Context, client *http.Client, target, key, encoding string) ([]time.Duration, int) {
	var latencies []time.Duration
	errs := 0
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return latencies, errs + 1
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		began := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				errs++
			}
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			errs++
			continue
		}
		latencies = append(latencies, time.Since(began))
	}
	return latencies, errs
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(q*float64(len(sorted)-1))]
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// peakRSS reads VmHWM (KiB) of a process; 0 when it cannot.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb
			}
		}
	}
	return 0
}

// tickMicros is one clock tick of /proc/PID/stat in µs: Linux reports
// CPU times in USER_HZ, 100 a second on every architecture it runs Go on.
const tickMicros = 10_000

// cpuTicks reads a process's user and system CPU time in clock ticks; 0
// when it cannot.
func cpuTicks(pid int) (user, sys int64) {
	if pid <= 0 {
		return 0, 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The command name (field 2) may hold spaces: count from after it.
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest) // f[0] is field 3 (state); utime is field 14, stime 15
	if len(f) < 13 {
		return 0, 0
	}
	_, _ = fmt.Sscan(f[11], &user)
	_, _ = fmt.Sscan(f[12], &sys)
	return user, sys
}

// loopbackOnly refuses any target but a loopback address.
func loopbackOnly(base string) error {
	u, err := url.Parse(base)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return errors.New("the target must be a loopback address (127.0.0.0/8, ::1 or localhost)")
	}
	return nil
}
