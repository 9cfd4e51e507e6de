package normalize

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/table"
)

// TestCommentOption: comment is auto, none or one character that is not a
// blank, the delimiter or the quote; the readers get it as given.
func TestCommentOption(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{`{}`: "", `{"comment":"auto"}`: "", `{"comment":"none"}`: table.CommentNone, `{"comment":";"}`: ";"} {
		o, err := ParseOptions(ModeNormalize, []byte(raw))
		if err != nil || o.ReadOptions(table.Limits{}).Comment != want {
			t.Errorf("%s: %v, comment %q", raw, err, o.ReadOptions(table.Limits{}).Comment)
		}
	}
	for _, raw := range []string{`{"comment":"##"}`, `{"comment":" "}`, `{"comment":""}`, `{"comment":7}`, `{"comment":";","delimiter":";"}`, `{"comment":"'","quote":"'"}`} {
		_, err := ParseOptions(ModeNormalize, []byte(raw))
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidRequest || len(de.Fields) != 1 || de.Fields[0].Field != "options.comment" {
			t.Errorf("%s: %v", raw, err)
		}
	}
}

// TestSkippedCommentsWarning: comment lines a reader skipped are one
// file-level warning with their count and lines, and the detected options
// carry the character, so passing them back reads the same.
func TestSkippedCommentsWarning(t *testing.T) {
	t.Parallel()
	det := table.Detection{Format: table.CSV, Delimiter: ",", Quote: `"`, HeaderRow: 1, Comment: "#", CommentLines: []int{1, 5}, CommentCount: 2}
	src := Source{Open: func() (table.Reader, error) {
		return &tallyReader{memReader: memReader{rows: [][]string{{"name"}, {"Ann"}}}, start: det, end: det}, nil
	}}
	got := execute(t, ModeNormalize, mustSchema(t, `{"fields":[{"name":"name","type":"string"}]}`), "", src)
	found := false
	for _, is := range got.issues {
		found = found || is["code"] == "skipped_comments" && strings.Contains(is["message"].(string), "2 comment line(s)") &&
			strings.Contains(is["message"].(string), "lines 1, 5")
	}
	if got.err != nil || !found {
		t.Fatalf("%v %v", got.err, got.issues)
	}
	if o := agreedOptions([]FileDetection{{Detection: det}}); o["comment"] != "#" {
		t.Fatalf("detected options %v", o)
	}
}

// TestDetectedCommentRoundTrips: the detected options always say the
// comment character a delimited file was read with, "none" when none was
// (a file starting with # read with comment none would otherwise be read
// with comments when its detected options are passed back).
func TestDetectedCommentRoundTrips(t *testing.T) {
	t.Parallel()
	for read, want := range map[string]string{"": table.CommentNone, "#": "#", ";": ";"} {
		det := table.Detection{Format: table.CSV, Delimiter: ",", Quote: `"`, HeaderRow: 1, Comment: read}
		opts := agreedOptions([]FileDetection{{Detection: det}})
		if opts["comment"] != orNone(read) {
			t.Errorf("read with %q: detected options %v", read, opts)
			continue
		}
		raw, _ := json.Marshal(opts)
		o, err := ParseOptions(ModeNormalize, raw)
		if err != nil || o.ReadOptions(table.Limits{}).Comment != want {
			t.Errorf("read with %q: %s gives %v, comment %q", read, raw, err, o.ReadOptions(table.Limits{}).Comment)
		}
	}
	if opts := agreedOptions([]FileDetection{{Detection: table.Detection{Format: table.XLSX, Sheet: "Data", HeaderRow: 1}}}); opts["comment"] != nil {
		t.Errorf("a workbook's detected options %v", opts)
	}
}
