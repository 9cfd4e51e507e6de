// Package jobs runs normalization jobs: it takes uploads into storage,
// queues jobs transactionally, runs them on a worker with leases,
// progress and cancellation, and serves their results.
//
// Each use case is a type of its own that takes only the ports it uses:
//
//   - Creator (create.go, usage.go) takes uploads into storage and
//     creates jobs under the organization's quotas and limits (Create,
//     Submit), queues again a job its review confirmed (Resume), and
//     reports the organization's usage.
//   - Runner (run.go, lease.go, progress.go, result.go, review.go) runs a
//     queued job to its end: it is the queue's ports.JobRunner. Its
//     RunJob's comment lists everything that follows a job's end.
//   - Reader (read.go, feed.go) reads jobs, their events (stored and
//     live) and their results.
//   - Canceler (cancel.go) cancels and deletes jobs.
//   - Reaper (reaper.go) requeues the jobs of lost workers, deletes the
//     files of jobs past their retention, and runs the periodic sweeps on
//     a worker node; Orphans (orphans.go, workdirs.go) reclaims storage
//     nothing owns.
//
// They share three parts: the Outbox (outbox.go), through which every
// event of a job is stored; the Dispatcher (dispatch.go), which keeps
// each organization's running slots and hands its waiting jobs to the
// queue; and Sources (stage.go, source.go, check.go, lists.go), which
// stages a job's files in a working folder and opens them with the job's
// read options, for a run, a review's samples and the annotated workbook.
//
// A job's side effects start from its events, and only there: every
// change of a job's status stores its event through the Outbox in the
// transaction that changes the job, and the Outbox tells its Subscribers
// there, so what they write commits with the change or not at all.
// Bootstrap registers them where it wires the jobs (bootstrap.newOutbox):
// today the webhooks' fan-out (webhooks.Fanout), which writes a delivery per subscribed
// endpoint.
package jobs
