package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tabnorm/tabnorm/application/audit"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/hook"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

// MaxSampleRows bounds a sample batch (Test).
const MaxSampleRows = 100

// SampleAnswer is what a hook made of a sample batch.
type SampleAnswer struct {
	// Status is the request's outcome: succeeded (an answer taken),
	// refused (an answer the rules refuse), failed (another status) or
	// error (no answer: a refused address, a timeout, a network failure).
	Status     string
	StatusCode int // 0 when no answer came
	Duration   time.Duration
	Answers    []hook.Answer
	// Error is why the batch would have failed in a job ("" when it
	// would not).
	Error string
}

// Test sends one signed sample batch to a hook, as a job would (the same
// signing, sender and address checks, timeout and cap on the answer), and
// returns what came back, a failure included: a hook's failure is the
// answer, not an error. It makes one attempt, without the breaker or the
// budgets (a hook whose breaker is open can be tried), and leaves the
// hook's recent batches alone. A disabled hook can be tried too, before
// it is enabled. The sample's fields are the ones the hook may correct.
// The attempt is audited (hook.test) before it is made.
func (s *Registry) Test(ctx context.Context, p identity.Principal, hookID string, rows []hook.Row) (SampleAnswer, error) {
	if err := hook.CanManage(p); err != nil {
		return SampleAnswer{}, err
	}
	h, err := s.hooks.Get(ctx, p.OrgID, hookID) // another organization's hook is not found, whatever the sample
	if err != nil {
		return SampleAnswer{}, err
	}
	fields, err := sampleFields(rows)
	if err != nil {
		return SampleAnswer{}, err
	}
	if err := Open(s.sealer, &h); errors.Is(err, ports.ErrNoSecretKey) {
		return SampleAnswer{}, domain.Errorf(domain.ErrConflict, domain.CodeSecretKeyRequired,
			"A hook cannot be called: the server has no TABNORM_SECRET_KEY to open its secret with.")
	} else if err != nil {
		return SampleAnswer{}, err
	}
	now := s.clock.Now()
	if err := s.tx.InTx(ctx, func(ctx context.Context) error {
		return audit.Record(ctx, s.audit, p, "hook.test", hookID, now)
	}); err != nil {
		return SampleAnswer{}, err
	}
	body := hook.Batch{Type: hook.ValidateType, Hook: h.Name, Rows: rows}.Encode()
	capped := hook.MaxAnswerBytes(len(rows), s.cfg.AnswerBytesPerRow)
	resp, err := send(ctx, s.sender, h, now, capped, body)
	if err != nil {
		return SampleAnswer{}, err
	}
	j := judge(resp, rows, capped, fields, fields)
	out := SampleAnswer{Status: j.outcome, StatusCode: resp.StatusCode, Duration: resp.Latency, Answers: j.answers}
	if j.err != nil {
		out.Error = j.err.Error()
		if ea, ok := errors.AsType[*hook.ErrAnswer](j.err); ok {
			out.Error = "its answer was refused: " + ea.Reason
		}
	}
	return out, nil
}

// sampleFields checks a sample batch (1 to MaxSampleRows rows, positive
// distinct row numbers, each row's values an object of strings, numbers,
// booleans and nulls) and returns the fields it names, sorted.
func sampleFields(rows []hook.Row) ([]string, error) {
	if len(rows) == 0 || len(rows) > MaxSampleRows {
		return nil, sampleError("rows", fmt.Sprintf("must hold 1 to %d rows", MaxSampleRows))
	}
	seen := map[int64]bool{}
	var fields []string
	for i, r := range rows {
		at := fmt.Sprintf("rows[%d]", i)
		if r.Row < 1 || seen[r.Row] {
			return nil, sampleError(at+".row", "must be a row number from 1, once each")
		}
		seen[r.Row] = true
		var values map[string]json.RawMessage
		if err := json.Unmarshal(r.Values, &values); err != nil || values == nil {
			return nil, sampleError(at+".values", "must be an object of field names to values")
		}
		for f, v := range values {
			if f == "" || !scalar(v) {
				return nil, sampleError(at+".values", fmt.Sprintf("%q must be a string, number, boolean or null", f))
			}
			if !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
	}
	slices.Sort(fields)
	return fields, nil
}

func scalar(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] != '{' && v[0] != '['
}

func sampleError(field, msg string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The sample batch is not valid; see errors.",
		Fields: []domain.FieldError{{Field: field, Message: msg}}}
}
