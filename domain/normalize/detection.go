package normalize

import (
	"fmt"
	"strconv"
	"strings"

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

// tailWarnings reports, once a file is read, what its reader let go of
// under the header (table.Detection counts it while reading): comment
// lines (above the header too), blank records, repeated headers, another table stacked below, notes below the
// table; a header one cell short read with row labels; merged cells
// over the data, whose value only their first cell holds; and which of a
// workbook's sheets was read when others hold data. The file's
// entry in Result.Detected gets the final counts.
func (w *writer) tailWarnings(fileID string, r table.Reader) {
	dr, ok := r.(table.Describer)
	if !ok {
		return
	}
	d := dr.Detection()
	for i := range w.res.Detected {
		if w.res.Detected[i].SourceFile == fileID {
			w.res.Detected[i].Detection = d
		}
	}
	file := func(code, format string, args ...any) {
		w.issue(Issue{SourceFile: fileID, Severity: warning, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if d.RowLabels {
		file("header_one_short", "The header has one cell fewer than the records: the first column is read as row labels, named %q.", table.RowLabelColumn)
	}
	if d.BlankCount > 0 {
		file("skipped_blank_rows", "%d blank record(s) under the header were skipped: rows %s.", d.BlankCount, rowList(d.BlankRows, d.BlankCount))
	}
	if d.RepeatedHeaderCount > 0 {
		file("repeated_header", "%d record(s) repeat the header and were skipped: rows %s.", d.RepeatedHeaderCount, rowList(d.RepeatedHeaderRows, d.RepeatedHeaderCount))
	}
	if d.StackedRow > 0 {
		file("stacked_tables", "Another table starts at row %d with columns %q: its %d record(s), header included, were not read as rows of this one. Read it with header_row.",
			d.StackedRow, d.StackedHeader, d.StackedCount)
	}
	if d.CommentCount > 0 {
		file("skipped_comments", "%d comment line(s) starting with %q were skipped: lines %s. Set comment to \"none\" to read them as records.",
			d.CommentCount, d.Comment, rowList(d.CommentLines, d.CommentCount))
	}
	if d.FooterCount > 0 {
		file("skipped_footer", "%d record(s) below the table were read as notes and skipped: rows %s. Set footer_rows to \"none\" to read them.",
			d.FooterCount, rowList(d.FooterRows, d.FooterCount))
	}
	if d.MergedCount > 0 {
		file("merged_cells", "%d merged range(s) of the sheet cover data rows: %s. A merged range's value is in its first cell only; its other cells are read as empty.",
			d.MergedCount, listed(d.MergedRanges, d.MergedCount))
	}
	if d.SheetPassedOver != "" {
		file("sheet_chosen", "The workbook's sheet %q was read in place of the first, %q, which holds notes (mostly long text), not a table. Set the sheet option to read another.",
			d.Sheet, d.SheetPassedOver)
	}
	if len(d.OtherSheets) > 0 {
		others := make([]string, len(d.OtherSheets))
		for i, s := range d.OtherSheets {
			atLeast := ""
			if !s.Complete {
				atLeast = "at least "
			}
			others[i] = fmt.Sprintf("%q (%s%d rows)", s.Name, atLeast, s.Rows)
		}
		file("other_sheets", "The sheet %q was read; the workbook has other sheets with data: %s. Set the sheet option to read another.", d.Sheet, strings.Join(others, ", "))
	}
}

// rowList lists rows, with an ellipsis when there are more than listed.
func rowList(rows []int, count int) string {
	s := make([]string, len(rows))
	for i, r := range rows {
		s[i] = strconv.Itoa(r)
	}
	return listed(s, count)
}

// listed joins the first of count items, with an ellipsis when there are
// more than listed.
func listed(items []string, count int) string {
	out := strings.Join(items, ", ")
	if count > len(items) {
		out += ", …"
	}
	return out
}
