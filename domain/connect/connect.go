// Package connect is the connect product's domain: an organization's
// library of uploaded files, and the rules for building one job out of
// several of them (API.md §8).
package connect

import (
	"fmt"
	"time"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
)

// File is one file in an organization's library.
type File struct {
	ID        string
	OrgID     string
	Filename  string
	Format    string
	SizeBytes int64
	SHA256    string
	CreatedAt time.Time
}

// JobFile is the file as a job lists it in source.files.
func (f File) JobFile() job.File {
	return job.File{ID: f.ID, Filename: f.Filename, Format: f.Format, SizeBytes: f.SizeBytes, SHA256: f.SHA256}
}

// BlobKey is where a library file's bytes are stored. Jobs read the file
// there in place: a connect job copies nothing.
func BlobKey(orgID, fileID string) string { return "org/" + orgID + "/files/" + fileID }

// MaxFilesPerJob bounds file_ids: a job over more files than this is
// better split, and the bound keeps the request and its checks small.
const MaxFilesPerJob = 100

// CheckFileIDs validates the file_ids of a connect job request: present,
// 1 to MaxFilesPerJob of them, none empty and none twice (a file read
// twice would double its rows).
func CheckFileIDs(ids []string) error {
	switch {
	case len(ids) == 0:
		return invalidIDs("file_ids", "must list at least one file")
	case len(ids) > MaxFilesPerJob:
		return invalidIDs("file_ids", fmt.Sprintf("must list at most %d files", MaxFilesPerJob))
	}
	seen := make(map[string]int, len(ids))
	var problems []domain.FieldError
	for i, id := range ids {
		at := fmt.Sprintf("file_ids[%d]", i)
		if id == "" {
			problems = append(problems, domain.FieldError{Field: at, Message: "must not be empty"})
			continue
		}
		if first, dup := seen[id]; dup {
			problems = append(problems, domain.FieldError{Field: at, Message: fmt.Sprintf("repeats file_ids[%d]", first)})
			continue
		}
		seen[id] = i
	}
	if len(problems) > 0 {
		return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "file_ids must name each file once.", Fields: problems}
	}
	return nil
}

func invalidIDs(field, message string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "file_ids " + message + ".",
		Fields: []domain.FieldError{{Field: field, Message: message}}}
}

// InOrder returns the files named by ids, in the order of ids, or a 422
// file_not_found listing every id that is not among found (the
// organization's files; another organization's file is simply absent).
func InOrder(ids []string, found []File) ([]File, error) {
	byID := make(map[string]File, len(found))
	for _, f := range found {
		byID[f.ID] = f
	}
	out := make([]File, 0, len(ids))
	var missing []domain.FieldError
	for i, id := range ids {
		f, ok := byID[id]
		if !ok {
			missing = append(missing, domain.FieldError{Field: fmt.Sprintf("file_ids[%d]", i), Message: fmt.Sprintf("no file %q in this organization", id)})
			continue
		}
		out = append(out, f)
	}
	if len(missing) > 0 {
		return nil, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeFileNotFound,
			Message: fmt.Sprintf("%d of the files in file_ids do not exist.", len(missing)), Fields: missing}
	}
	return out, nil
}

// InUse is the 409 for deleting a file that an unfinished job still reads.
func InUse(fileID string, jobIDs []string) error {
	return domain.Errorf(domain.ErrConflict, domain.CodeConflict,
		"File %s is used by %d unfinished job(s) (%s); cancel them or wait until they end, then delete it.", fileID, len(jobIDs), jobIDs[0])
}
