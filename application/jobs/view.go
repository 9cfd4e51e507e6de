package jobs

import (
	"encoding/json"
	"time"

	"github.com/tabnorm/tabnorm/domain/job"
)

// The job object of API.md §5.2. It is rendered here, once, because the
// API answers it and the terminal events carry it.

type fileView struct {
	ID        string `json:"id"`
	Filename  string `json:"filename"`
	Format    string `json:"format"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

type progressView struct {
	RowsRead     int64   `json:"rows_read"`
	RowsValid    int64   `json:"rows_valid"`
	RowsRejected int64   `json:"rows_rejected"`
	BytesRead    int64   `json:"bytes_read"`
	BytesTotal   int64   `json:"bytes_total"`
	Percent      float64 `json:"percent"`
}

type errorView struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// View is the job object.
type View struct {
	ID     string  `json:"id"`
	Object string  `json:"object"`
	Name   *string `json:"name"`
	Mode   string  `json:"mode"`
	Status string  `json:"status"`
	Source struct {
		Type  string     `json:"type"`
		Files []fileView `json:"files"`
	} `json:"source"`
	SchemaID   *string         `json:"schema_id"`
	Schema     json.RawMessage `json:"schema"`
	Options    json.RawMessage `json:"options"`
	Progress   progressView    `json:"progress"`
	Mapping    json.RawMessage `json:"mapping"`
	Result     json.RawMessage `json:"result"`
	Error      *errorView      `json:"error"`
	Attempts   int             `json:"attempts"`
	CreatedAt  string          `json:"created_at"`
	StartedAt  *string         `json:"started_at"`
	FinishedAt *string         `json:"finished_at"`
}

const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func ts(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(timeLayout)
	return &s
}

func raw(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// Path is where a job is served: a connect job under the connect
// product's routes, so an organization with connect alone can follow it;
// every other job under /v1/jobs. Both paths serve any of the
// organization's jobs.
func Path(j job.Job) string {
	if j.SourceType == job.SourceConnect {
		return "/v1/connect/jobs/" + j.ID
	}
	return "/v1/jobs/" + j.ID
}

// NewView renders a job.
func NewView(j job.Job) View {
	v := View{ID: j.ID, Object: "job", Mode: string(j.Mode), Status: string(j.Status), Schema: raw(j.Schema), Options: raw(j.Options),
		Mapping: raw(j.Mapping), Result: raw(j.Result), Attempts: j.Attempts, CreatedAt: j.CreatedAt.UTC().Format(timeLayout),
		StartedAt: ts(j.StartedAt), FinishedAt: ts(j.FinishedAt)}
	if j.Mapping == nil {
		v.Mapping = json.RawMessage("[]")
	}
	if j.Name != "" {
		v.Name = &j.Name
	}
	if j.SchemaID != "" {
		v.SchemaID = &j.SchemaID
	}
	v.Source.Type = string(j.SourceType)
	v.Source.Files = []fileView{}
	for _, f := range j.Files {
		v.Source.Files = append(v.Source.Files, fileView(f))
	}
	p := j.Progress
	v.Progress = progressView{RowsRead: p.RowsRead, RowsValid: p.RowsValid, RowsRejected: p.RowsRejected, BytesRead: p.BytesRead, BytesTotal: p.BytesTotal, Percent: p.Percent()}
	if j.Status == job.Succeeded {
		v.Progress.Percent = 100
	}
	if j.Failure != nil {
		v.Error = &errorView{Code: j.Failure.Code, Message: j.Failure.Message}
	}
	return v
}

// eventData is the data of a job event (API.md §5.5).
type eventData struct {
	JobID    string       `json:"job_id"`
	Status   string       `json:"status"`
	Progress progressView `json:"progress"`
	At       string       `json:"at"`
	Job      *View        `json:"job,omitempty"`
}

func eventJSON(j job.Job, at time.Time, withJob bool) []byte {
	v := NewView(j)
	d := eventData{JobID: j.ID, Status: string(j.Status), Progress: v.Progress, At: at.UTC().Format(timeLayout)}
	if withJob {
		d.Job = &v
	}
	b, _ := json.Marshal(d)
	return b
}
