package httpapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

type allowanceJSON struct {
	Used  int64  `json:"used"`
	Limit *int64 `json:"limit"` // null: no quota
}

type usageJSON struct {
	PeriodStart  string        `json:"period_start"`
	Rows         allowanceJSON `json:"rows"`
	StorageBytes allowanceJSON `json:"storage_bytes"`
	Jobs         struct {
		QueuedOrRunning int `json:"queued_or_running"`
		MaxQueued       int `json:"max_queued"`
		MaxRunning      int `json:"max_running"`
	} `json:"jobs"`
}

func limitOf(n int64) *int64 {
	if n <= 0 {
		return nil
	}
	return &n
}

// usage is GET /v1/usage: the caller's organization's use this month
// against its quotas and job limits.
func (a *API) usage(c *gin.Context) {
	u, err := a.deps.JobCreator.Usage(c.Request.Context(), principal(c))
	if err != nil {
		fail(c, err)
		return
	}
	var out usageJSON
	out.PeriodStart = u.PeriodStart.UTC().Format(time.RFC3339)
	out.Rows = allowanceJSON{Used: u.Rows, Limit: limitOf(u.Quota.RowsPerMonth)}
	out.StorageBytes = allowanceJSON{Used: u.StorageBytes, Limit: limitOf(u.Quota.StorageBytes)}
	out.Jobs.QueuedOrRunning, out.Jobs.MaxQueued, out.Jobs.MaxRunning = u.Pending, u.MaxQueuedPerOrg, u.MaxRunningPerOrg
	c.JSON(http.StatusOK, out)
}
