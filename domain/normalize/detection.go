package normalize

import (
	"fmt"
	"strconv"

	"github.com/tabnorm/tabnorm/domain/table"
)

// readerWarnings turns what a reader decided about its file into the
// file-level warnings fileWarnings does not give: a delimiter that splits
// nothing (delimiter_not_found), so a one-column reading is never silent.
func readerWarnings(r table.Reader, fileID string, header []string) []Issue {
	dr, ok := r.(table.Describer)
	if !ok {
		return nil
	}
	d := dr.Detection()
	if (d.Format == table.CSV || d.Format == table.TSV) && len(header) <= 1 {
		return []Issue{{SourceFile: fileID, Severity: warning, Code: "delimiter_not_found",
			Message: fmt.Sprintf("The delimiter %s splits no record: the file is read as one column. Set options.delimiter if it has more.", delimiterName(d.Delimiter))}}
	}
	return nil
}

func delimiterName(d string) string {
	switch d {
	case "\t":
		return "tab"
	case " ":
		return "space"
	}
	return strconv.Quote(d)
}
