package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
)

// BenchmarkSSEFanout opens 1,000 event streams on an API node for one
// job, then lets a worker process on another node run it (PostgreSQL,
// LISTEN/NOTIFY between them). It reports the API node's memory per
// subscriber and the p99 delay from an event being stored (its "at") to a
// client reading it.
//
//	TABNORM_TEST_DATABASE_URL=postgres://… go test -run '^$' -bench SSEFanout -benchtime 1x ./test/e2e/
func BenchmarkSSEFanout(b *testing.B) {
	target, ok := sqltest.Postgres(b)
	if !ok {
		b.Skip("needs PostgreSQL (TABNORM_TEST_DATABASE_URL): the fan-out crosses nodes over LISTEN/NOTIFY")
	}
	const subscribers = 1000
	dir := b.TempDir()
	env := []string{"TABNORM_DATABASE_URL=" + target.URL, "TABNORM_BLOB_URL=file://" + filepath.Join(dir, "blobs"),
		"TABNORM_RATE_LIMIT_PER_SECOND=100000", "TABNORM_RATE_LIMIT_BURST=100000"}
	api := startServeRole(b, dir, "api", env...)
	key := createKey(b, dir, env)
	var csv strings.Builder
	csv.WriteString("id,email\n")
	for i := 1; i <= 400_000; i++ {
		fmt.Fprintf(&csv, "%d,user%d@example.com\n", i, i)
	}
	jobID := submit(b, api.url, key, csv.String(), `{"fields":[{"name":"id","type":"integer"},{"name":"email","type":"string","format":"email"}]}`)
	before := rssKiB(b, api.cmd.Process.Pid)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: subscribers, MaxConnsPerHost: 0}}
	var mu sync.Mutex
	var delays []time.Duration
	var opened, done sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for range subscribers {
		opened.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", api.url+"/v1/jobs/"+jobID+"/events", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := client.Do(req)
			if err != nil {
				opened.Done()
				return
			}
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			first := true
			for sc.Scan() {
				line := sc.Text()
				if !strings.HasPrefix(line, "data: ") {
					continue
				}
				now := time.Now()
				if first { // the stored job.queued, replayed on connect
					first = false
					opened.Done()
					continue
				}
				var ev struct{ At time.Time }
				if json.Unmarshal([]byte(line[6:]), &ev) == nil {
					mu.Lock()
					delays = append(delays, now.Sub(ev.At))
					mu.Unlock()
				}
			}
		}()
	}
	opened.Wait()
	time.Sleep(time.Second)
	after := rssKiB(b, api.cmd.Process.Pid)
	startServeRole(b, dir, "worker", env...) // runs the job; its events reach the API node by NOTIFY
	done.Wait()
	if len(delays) < subscribers*2 {
		b.Fatalf("only %d live events reached %d subscribers", len(delays), subscribers)
	}
	sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
	p := func(q float64) float64 { return float64(delays[int(q*float64(len(delays)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(after-before)/subscribers, "KiB/subscriber")
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(float64(len(delays))/subscribers, "events/subscriber")
}

func rssKiB(b *testing.B, pid int) int {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(line)[1])
			return n
		}
	}
	return 0
}
