package connect_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/connect"
)

func fields(err error) []string {
	var e *domain.Error
	if !errors.As(err, &e) {
		return nil
	}
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.Field
	}
	return out
}

func TestCheckFileIDs(t *testing.T) {
	t.Parallel()
	tooMany := make([]string, connect.MaxFilesPerJob+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("file_%d", i)
	}
	tests := map[string]struct {
		ids    []string
		fields []string // nil: valid
	}{
		"one":                 {ids: []string{"file_a"}},
		"several in order":    {ids: []string{"file_b", "file_a", "file_c"}},
		"the most allowed":    {ids: tooMany[:connect.MaxFilesPerJob]},
		"missing":             {ids: nil, fields: []string{"file_ids"}},
		"empty":               {ids: []string{}, fields: []string{"file_ids"}},
		"too many":            {ids: tooMany, fields: []string{"file_ids"}},
		"an empty id":         {ids: []string{"file_a", ""}, fields: []string{"file_ids[1]"}},
		"a repeated id":       {ids: []string{"file_a", "file_b", "file_a"}, fields: []string{"file_ids[2]"}},
		"every problem named": {ids: []string{"", "file_a", "file_a", ""}, fields: []string{"file_ids[0]", "file_ids[2]", "file_ids[3]"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := connect.CheckFileIDs(tt.ids)
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("valid ids refused: %v", err)
				}
				return
			}
			if domain.CodeOf(err) != "invalid_request" || !errors.Is(err, domain.ErrInvalid) {
				t.Fatalf("error %v, want invalid_request", err)
			}
			if got := fields(err); !reflect.DeepEqual(got, tt.fields) {
				t.Fatalf("fields %v, want %v", got, tt.fields)
			}
		})
	}
}

func TestInOrder(t *testing.T) {
	t.Parallel()
	a, b, c := connect.File{ID: "file_a"}, connect.File{ID: "file_b"}, connect.File{ID: "file_c"}

	t.Run("the order of the request, not of the store", func(t *testing.T) {
		t.Parallel()
		got, err := connect.InOrder([]string{"file_c", "file_a", "file_b"}, []connect.File{a, b, c})
		if err != nil {
			t.Fatal(err)
		}
		if ids := []string{got[0].ID, got[1].ID, got[2].ID}; !reflect.DeepEqual(ids, []string{"file_c", "file_a", "file_b"}) {
			t.Fatalf("order %v", ids)
		}
	})
	t.Run("every missing id listed", func(t *testing.T) {
		t.Parallel()
		_, err := connect.InOrder([]string{"file_x", "file_a", "file_y"}, []connect.File{a})
		if domain.CodeOf(err) != "file_not_found" {
			t.Fatalf("error %v, want file_not_found", err)
		}
		if got := fields(err); !reflect.DeepEqual(got, []string{"file_ids[0]", "file_ids[2]"}) {
			t.Fatalf("fields %v", got)
		}
	})
}

func TestInUse(t *testing.T) {
	t.Parallel()
	err := connect.InUse("file_a", []string{"job_1", "job_2"})
	if domain.CodeOf(err) != "conflict" || !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("error %v, want a conflict", err)
	}
}

func TestFile_JobFile(t *testing.T) {
	t.Parallel()
	f := connect.File{ID: "file_a", OrgID: "org_1", Filename: "a.csv", Format: "csv", SizeBytes: 12, SHA256: "ab"}
	jf := f.JobFile()
	if jf.ID != f.ID || jf.Filename != f.Filename || jf.Format != f.Format || jf.SizeBytes != f.SizeBytes || jf.SHA256 != f.SHA256 {
		t.Fatalf("job file %+v from %+v", jf, f)
	}
	if connect.BlobKey("org_1", "file_a") != "org/org_1/files/file_a" {
		t.Fatalf("blob key %q", connect.BlobKey("org_1", "file_a"))
	}
}
