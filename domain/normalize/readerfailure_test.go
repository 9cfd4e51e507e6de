package normalize

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
)

func TestReaderFailure_codes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		code domain.Code
	}{
		{fmt.Errorf("%w: a password-protected (encrypted) workbook", table.ErrEncrypted), "encrypted_file"},
		{fmt.Errorf("%w: a PDF document", table.ErrUnsupportedFormat), "unsupported_file_format"},
		{fmt.Errorf("%w: the sheet's zip checksum (CRC) does not match", table.ErrUnreadable), "unreadable_file"},
	} {
		var f *Failure
		if err := readerFailure(t.Context(), c.err, "f1"); !errors.As(err, &f) || f.Code != c.code {
			t.Errorf("%v: %v, want code %s", c.err, err, c.code)
		}
	}
}

// TestReaderFailure_stoppedJob: once the job's context has ended, a
// reader's error is the context's, whatever words the reader used: a
// canceled or timed-out job never fails as unreadable_file.
func TestReaderFailure_stoppedJob(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := readerFailure(ctx, fmt.Errorf("%w: the sheet's XML: the reader was stopped", table.ErrUnreadable), "f1")
	var f *Failure
	if !errors.Is(err, context.Canceled) || errors.As(err, &f) {
		t.Fatalf("readerFailure = %v, want context.Canceled", err)
	}
}
