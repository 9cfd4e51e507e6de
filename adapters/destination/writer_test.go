package destination_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tabnorm/tabnorm/adapters/destination"
	domaindst "github.com/tabnorm/tabnorm/domain/destination"
	"github.com/tabnorm/tabnorm/ports"
)

// testSchema has a field of each type a table column is made from.
const testSchema = `{"fields":[{"name":"name","type":"string"},{"name":"age","type":"integer"},{"name":"score","type":"number"},` +
	`{"name":"active","type":"boolean"},{"name":"born","type":"date"},{"name":"note","type":"string"}]}`

var testFields = []string{"name", "age", "score", "active", "born", "note"}

// rowsOf is a job's stored rows.
func rowsOf(lines ...string) ports.Rows {
	body := strings.Join(lines, "\n") + "\n"
	return func(context.Context) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
}

// manyRows is n stored rows, numbered.
func manyRows(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"name":"person %d","age":%d,"score":%d.5,"active":true,"born":"1990-01-02","note":"line \"%d\", with a comma"}`, i, i%90, i, i)
	}
	return out
}

func shipment(jobID string, replaces []string, rows ports.Rows) ports.Shipment {
	return ports.Shipment{JobID: jobID, Replaces: replaces, Job: []byte(`{"id":"` + jobID + `"}`), Schema: []byte(testSchema), Fields: testFields, Rows: rows}
}

func newWriter(allowPrivate bool) *destination.Writer {
	return destination.New(destination.Config{AllowPrivate: allowPrivate, BatchRows: 2})
}

// cancelAfter is rows that cancel the attempt's context once n bytes
// were read, and then fail as a reader cut off would: a worker stopped
// in the middle of a delivery.
func cancelAfter(rows []string, n int, cancel context.CancelFunc) ports.Rows {
	body := strings.Join(rows, "\n") + "\n"
	return func(ctx context.Context) (io.ReadCloser, error) {
		return io.NopCloser(&cutReader{r: strings.NewReader(body), left: n, cancel: cancel, ctx: ctx}), nil
	}
}

type cutReader struct {
	r      io.Reader
	left   int
	cancel context.CancelFunc
	ctx    context.Context
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.cancel()
		<-c.ctx.Done()
		return 0, errors.New("worker stopped")
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= n
	return n, err
}

func target(typ string, cfg, secrets map[string]string) domaindst.Target {
	return domaindst.Target{Destination: domaindst.Destination{ID: "dst_test", OrgID: "org_test", Type: typ, Config: cfg}, Secrets: secrets}
}
