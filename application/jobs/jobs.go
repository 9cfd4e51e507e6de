package jobs

import (
	"time"

	"github.com/tabnorm/tabnorm/application/upload"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
	"github.com/tabnorm/tabnorm/ports"
)

// Config holds the job limits; each use case reads those it applies.
type Config struct {
	MaxUploadBytes int64
	MaxRows        int64
	Limits         table.Limits
	JobTimeout     time.Duration
	Lease          time.Duration
	Retention      time.Duration // finished jobs' files are deleted after this (0: kept)
	// NewIndex makes the engine's unique-value indexes (nil: in memory).
	NewIndex func() normalize.UniqueIndex
	// Observer hears of every job that ends on this node (nil: nobody).
	Observer ports.JobObserver
	// MaxRunningPerOrg jobs of an organization run at once (0: 4); the
	// rest wait for its slots without holding back other organizations.
	MaxRunningPerOrg int
	// MaxQueuedPerOrg jobs of an organization may be queued or running
	// (0: 1,000); beyond it creation answers quota_exceeded.
	MaxQueuedPerOrg int
}

// withDefaults fills the limits left zero.
func (c Config) withDefaults() Config {
	if c.Lease <= 0 {
		c.Lease = 30 * time.Second
	}
	if c.JobTimeout <= 0 {
		c.JobTimeout = time.Hour
	}
	if c.MaxRunningPerOrg <= 0 {
		c.MaxRunningPerOrg = 4
	}
	if c.MaxQueuedPerOrg <= 0 {
		c.MaxQueuedPerOrg = 1000
	}
	return c
}

func sourceKey(orgID, jobID string) string { return "org/" + orgID + "/jobs/" + jobID + "/source" }
func resultKey(orgID, jobID, name string) string {
	return "org/" + orgID + "/jobs/" + jobID + "/" + name
}
func jobPrefix(orgID, jobID string) string { return "org/" + orgID + "/jobs/" + jobID + "/" }

// SourceKey is where the file of an uploaded job is stored.
func SourceKey(orgID, jobID string) string { return sourceKey(orgID, jobID) }

// RowsKey is where a succeeded job's valid rows are stored.
func RowsKey(orgID, jobID string) string { return resultKey(orgID, jobID, string(Rows)) }

// SampleKey is where a reviewed job's sample is kept: under the job's own
// prefix, so deleting the job or purging its files takes it along.
func SampleKey(orgID, jobID string) string { return resultKey(orgID, jobID, "review-sample.json") }

// Upload is a job's file while it streams in.
type Upload struct {
	JobID string
	upload.Upload
}

// Params are a job's settings as the client sent them.
type Params struct {
	Mode     string
	Schema   []byte // JSON, or nil
	SchemaID string
	Options  []byte
	Name     string
	// ImportSessionID and Metadata put the job in an import session and
	// give it the session's metadata: set by the service, never read from
	// a client.
	ImportSessionID string
	Metadata        []byte
}

// Submission is a new job: where its files are and how to run it.
type Submission struct {
	JobID      string // "" for a new id
	SourceType job.SourceType
	Files      []job.File
	Params     Params
	RerunOf    string // the job this one reruns (review hook: application/review)
}

// Result names a result file of a job.
type Result string

// The result files of a job.
const (
	Rows   Result = "rows.jsonl"   // the valid rows, one JSON object a line
	Issues Result = "issues.jsonl" // the issues, one JSON object a line
)

// Export names a download built from a succeeded job's result (rows as
// XLSX or Parquet, the annotated workbook of its issues): it is kept
// under the job's own prefix, so later downloads of the same job reuse it
// and retention deletes it with the job.
func Export(name string) Result { return Result("exports/" + name) }

// FieldNames returns a job's schema field names in order (the CSV header).
func FieldNames(j job.Job) []string {
	if j.Schema == nil {
		return nil
	}
	s, err := schema.Parse(j.Schema)
	if err != nil {
		return nil
	}
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}
