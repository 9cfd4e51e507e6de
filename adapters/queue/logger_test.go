package queue

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestRiverLogger: River's routine info lines go to debug, its lines about
// a failing job stay at info, its warnings stay warnings, and all carry
// component=river.
func TestRiverLogger(t *testing.T) {
	t.Parallel()
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var buf bytes.Buffer
		log := riverLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: level})))
		ctx := context.Background()
		log.InfoContext(ctx, "producer: Producer job counts", "num_completed_jobs", 0)
		log.InfoContext(ctx, "jobexecutor.JobExecutor: Job errored; retrying", "job_id", 7)
		log.WarnContext(ctx, "elector: Error attempting to elect")
		out := buf.String()
		routine := strings.Contains(out, "Producer job counts")
		if routine != (level == slog.LevelDebug) {
			t.Errorf("at %s, the producer's job counts logged: %v\n%s", level, routine, out)
		}
		for _, want := range []string{"level=INFO msg=\"jobexecutor.JobExecutor: Job errored; retrying\"", "level=WARN", "component=river"} {
			if !strings.Contains(out, want) {
				t.Errorf("at %s, no %q in\n%s", level, want, out)
			}
		}
	}
}
