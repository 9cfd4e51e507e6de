package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcblob "gocloud.dev/blob"

	"github.com/tabnorm/tabnorm/ports"
)

// tempName matches the temporary file a local store writes a blob into
// before renaming it to its key: <key>.<hex nanoseconds>.tmp. No key
// tabnorm makes ends so.
var tempName = regexp.MustCompile(`\.[0-9a-f]+\.tmp$`)

// List implements ports.BlobStore.
func (s *Store) List(ctx context.Context, prefix string, fn func(ports.BlobInfo) error) error {
	if s.dir != "" {
		return s.listFolder(ctx, prefix, fn)
	}
	it := s.bucket.List(&gcblob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list blobs under %s: %w", prefix, err)
		}
		if obj.IsDir {
			continue
		}
		if err := fn(ports.BlobInfo{Key: obj.Key, Size: obj.Size, ModTime: obj.ModTime.UTC()}); err != nil {
			return err
		}
	}
}

// listFolder lists a local store in one walk of its folders (gocloud's
// listing walks the tree again for every page of a thousand keys).
func (s *Store) listFolder(ctx context.Context, prefix string, fn func(ports.BlobInfo) error) error {
	root := s.dir
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		root = filepath.Join(s.dir, filepath.FromSlash(prefix[:i]))
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile, or nothing under prefix
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(s.dir, path)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(key, prefix) || tempName.MatchString(key) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		return fn(ports.BlobInfo{Key: key, Size: info.Size(), ModTime: info.ModTime().UTC()})
	})
	if err != nil {
		return fmt.Errorf("list blobs under %s: %w", prefix, err)
	}
	return nil
}

// Sweep implements ports.BlobStore.
func (s *Store) Sweep(ctx context.Context, prefix string, before time.Time) (int, error) {
	switch {
	case s.dir != "":
		return s.sweepFolder(ctx, prefix, before)
	case s.s3Bucket != "":
		return s.sweepUploads(ctx, prefix, before)
	}
	return 0, nil // memory: a write that never closed leaves nothing
}

// sweepFolder removes the temporary files of writes that never closed,
// then the folders left empty, each when it last changed before before.
// A folder's age is read before anything in it is removed; removing a
// folder fails while anything is in it, so a write that starts there
// meanwhile keeps it (or Create makes it again).
func (s *Store) sweepFolder(ctx context.Context, prefix string, before time.Time) (int, error) {
	n := 0
	if err := s.sweepDir(ctx, s.dir, "", prefix, before, &n); err != nil {
		return n, fmt.Errorf("sweep blob folder under %s: %w", prefix, err)
	}
	return n, nil
}

// readDir is os.ReadDir; a test replaces it to make a folder unreadable,
// which the root user running the tests cannot do with permissions.
var readDir = os.ReadDir

// sweepDir sweeps the folder dir, whose keys start with key ("" or
// "a/b/"), children first.
func (s *Store) sweepDir(ctx context.Context, dir, key, prefix string, before time.Time, n *int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // gone meanwhile
	}
	if err != nil {
		return err
	}
	entries, err := readDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read folder %s: %w", key, err)
	}
	for _, e := range entries {
		child := key + e.Name()
		if e.IsDir() {
			if sub := child + "/"; strings.HasPrefix(sub, prefix) || strings.HasPrefix(prefix, sub) {
				if err := s.sweepDir(ctx, filepath.Join(dir, e.Name()), sub, prefix, before, n); err != nil {
					return err
				}
			}
			continue
		}
		if !strings.HasPrefix(child, prefix) || !tempName.MatchString(child) {
			continue
		}
		removed, err := removeOld(filepath.Join(dir, e.Name()), e, before)
		if err != nil {
			return err
		}
		if removed {
			*n++
		}
	}
	if key != "" && strings.HasPrefix(key, prefix) && info.ModTime().Before(before) && os.Remove(dir) == nil {
		*n++
	}
	return nil
}

// removeOld removes the file path (the entry e) when it last changed
// before before; a file removed meanwhile is no error.
func removeOld(path string, e fs.DirEntry, before time.Time) (bool, error) {
	fi, err := e.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.ModTime().Before(before) {
		return false, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	} else if err != nil {
		return false, nil
	}
	return true, nil
}

// sweepUploads aborts the multipart uploads under prefix that began
// before before and never completed: their parts are stored, and billed,
// until then, yet are no object.
func (s *Store) sweepUploads(ctx context.Context, prefix string, before time.Time) (int, error) {
	var client *s3.Client
	if !s.bucket.As(&client) {
		return 0, nil
	}
	n := 0
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(s.s3Bucket), Prefix: aws.String(prefix)}
	for {
		page, err := client.ListMultipartUploads(ctx, in)
		if err != nil {
			return n, fmt.Errorf("list unfinished uploads under %s: %w", prefix, err)
		}
		for _, u := range page.Uploads {
			if u.Initiated == nil || !u.Initiated.Before(before) {
				continue
			}
			_, err := client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(s.s3Bucket), Key: u.Key, UploadId: u.UploadId})
			if err != nil {
				return n, fmt.Errorf("abort unfinished upload of %s: %w", aws.ToString(u.Key), err)
			}
			n++
		}
		if !aws.ToBool(page.IsTruncated) {
			return n, nil
		}
		in.KeyMarker, in.UploadIdMarker = page.NextKeyMarker, page.NextUploadIdMarker
	}
}

// prune removes the local folders that held key while they are empty,
// from the innermost out, up to the store's own folder.
func (s *Store) prune(key string) {
	if s.dir == "" || strings.Contains(key, "..") {
		return
	}
	dir := filepath.Dir(filepath.Join(s.dir, filepath.FromSlash(key)))
	for strings.HasPrefix(dir, s.dir+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
