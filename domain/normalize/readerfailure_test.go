package normalize

import (
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
		if err := readerFailure(c.err, "f1"); !errors.As(err, &f) || f.Code != c.code {
			t.Errorf("%v: %v, want code %s", c.err, err, c.code)
		}
	}
}
