package export

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"
	"github.com/xuri/excelize/v2"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// xlsxLevel is the deflate level of a workbook's parts (writeWorkbook).
const xlsxLevel = 2

// sheetPart is one sheet's rows (the <row> elements after the header) as
// a deflate segment in the spill file: complete blocks ending in a sync
// flush, so the segment can sit between two others in one part's stream.
type sheetPart struct {
	off, size int64  // the deflated bytes in the spill file
	crc       uint32 // CRC-32 of the XML
	raw       int64  // length of the XML
	rows      int
}

// sheetRows writes the rows' XML as excelize's stream writer wrote their
// cells (writeCell): a cell a value, no cell for a null; a number a
// double holds exactly as a number, other numbers' digits as an inline
// string; dates and datetimes as serial numbers under a date style;
// booleans as booleans; text as an inline string escaped as excelize
// escapes it. Each sheet's XML is deflated into the spill as it is
// written.
type sheetRows struct {
	spill    *countWriter
	buf      *bufio.Writer
	fw       *flate.Writer
	cols     []Column
	st       styles
	perSheet int // data rows a sheet holds
	colNames [][]byte
	parts    []sheetPart
	cur      *sheetPart
	xml      []byte // the row being written
	rowNum   int    // the sheet's row number of the last row written
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func newSheetRows(spill io.Writer, cols []Column, st styles, perSheet int) *sheetRows {
	cw := &countWriter{w: spill}
	buf := bufio.NewWriterSize(cw, 256<<10)
	fw, _ := flate.NewWriter(buf, xlsxLevel) // a valid level: no error
	names := make([][]byte, len(cols))
	for i := range cols {
		name, _ := excelize.ColumnNumberToName(i + 1) // 1..16384: no error
		names[i] = []byte(name)
	}
	return &sheetRows{spill: cw, buf: buf, fw: fw, cols: cols, st: st, perSheet: max(perSheet, 1), colNames: names}
}

// offset is where the next byte deflated goes in the spill file.
func (s *sheetRows) offset() int64 { return s.spill.n + int64(s.buf.Buffered()) }

// endSheet ends the current sheet's segment.
func (s *sheetRows) endSheet() error {
	if s.cur == nil {
		return nil
	}
	if err := s.fw.Flush(); err != nil {
		return err
	}
	s.cur.size = s.offset() - s.cur.off
	s.parts = append(s.parts, *s.cur)
	s.cur = nil
	return nil
}

func (s *sheetRows) startSheet() {
	s.fw.Reset(s.buf)
	s.cur, s.rowNum = &sheetPart{off: s.offset()}, 1
}

// row writes one row of cells (their kinds and texts, as Line reads them).
func (s *sheetRows) row(kinds []Kind, texts []string) error {
	if s.cur == nil || s.cur.rows >= s.perSheet {
		if err := s.endSheet(); err != nil {
			return err
		}
		s.startSheet()
	}
	s.rowNum++
	s.cur.rows++
	num := strconv.AppendInt(make([]byte, 0, 8), int64(s.rowNum), 10)
	b := s.xml[:0]
	b = append(b, `<row r="`...)
	b = append(b, num...)
	b = append(b, `">`...)
	for i, c := range s.cols {
		b = s.cell(b, i, num, c.Type, kinds[i], texts[i])
	}
	b = append(b, `</row>`...)
	s.xml = b
	s.cur.crc = crc32.Update(s.cur.crc, crc32.IEEETable, b)
	s.cur.raw += int64(len(b))
	_, err := s.fw.Write(b)
	return err
}

// finish ends the last sheet and returns every sheet's part: one with no
// rows when there were none.
func (s *sheetRows) finish() ([]sheetPart, error) {
	if s.cur == nil && len(s.parts) == 0 {
		s.startSheet()
	}
	if err := s.endSheet(); err != nil {
		return nil, err
	}
	return s.parts, s.buf.Flush()
}

// cell appends column i's cell, as cellOf typed it and writeCell wrote it.
func (s *sheetRows) cell(b []byte, i int, num []byte, t schema.Type, kind Kind, text string) []byte {
	open := func(style int, typ string) []byte {
		b = append(b, `<c r="`...)
		b = append(b, s.colNames[i]...)
		b = append(b, num...)
		b = append(b, '"')
		if style != 0 {
			b = append(b, ` s="`...)
			b = strconv.AppendInt(b, int64(style), 10)
			b = append(b, '"')
		}
		if typ != "" {
			b = append(b, ` t="`...)
			b = append(b, typ...)
			b = append(b, '"')
		}
		return append(b, '>')
	}
	switch kind {
	case Null:
		return b
	case Bool:
		b = open(0, "b")
		if text == "true" {
			b = append(b, `<v>1</v></c>`...)
		} else {
			b = append(b, `<v>0</v></c>`...)
		}
		return b
	case Number:
		if exactInDouble(text) {
			if f, err := strconv.ParseFloat(text, 64); err == nil {
				b = open(0, "")
				b = append(b, `<v>`...)
				b = strconv.AppendFloat(b, f, 'f', -1, 64)
				return append(b, `</v></c>`...)
			}
		}
	case String:
		d, style, ok := s.dateOf(t, text)
		if ok && !d.Before(excelEpoch) {
			if serial := excelSerial(d); serial > 0 {
				b = open(style, "")
				b = append(b, `<v>`...)
				b = strconv.AppendFloat(b, serial, 'f', -1, 64)
				return append(b, `</v></c>`...)
			}
		}
	}
	b = open(0, "inlineStr")
	plain := plainCellText(text)
	b = append(b, `<is><t`...)
	if !plain && preserveSpace(text) {
		b = append(b, ` xml:space="preserve"`...)
	}
	b = append(b, '>')
	if plain {
		b = append(b, text...)
	} else {
		b = append(b, escapeCellText(text)...)
	}
	return append(b, `</t></is></c>`...)
}

// dateOf reads a date or datetime column's text (UTC) and its style;
// false for another column or a text that is no date.
func (s *sheetRows) dateOf(t schema.Type, text string) (time.Time, int, bool) {
	switch t {
	case schema.Date:
		d, err := time.Parse(time.DateOnly, text)
		return d, s.st.date, err == nil
	case schema.DateTime:
		d, err := time.Parse(time.RFC3339Nano, text)
		return d.UTC(), s.st.dateTime, err == nil
	}
	return time.Time{}, 0, false
}

// cellTextClass sorts a text's bytes: 0 written as they are, 1 one that
// excelize escapes or marks (trimCellValue), 2 past ASCII.
var cellTextClass = func() (c [256]uint8) {
	for b := range 256 {
		switch {
		case b >= 0x80:
			c[b] = 2
		case b < 0x20, b == '<', b == '>', b == '&', b == '\'', b == '"', b == '_':
			c[b] = 1
		}
	}
	return c
}()

// plainCellText says whether excelize writes a text as it is: no byte it
// escapes, no space at either end, no _xHHHH_ to guard, valid UTF-8 of
// characters XML allows.
func plainCellText(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	wide := false
	for i := 0; i < len(s); i++ {
		switch cellTextClass[s[i]] {
		case 1:
			return false
		case 2:
			wide = true
		}
	}
	return !wide || utf8.ValidString(s) && !strings.Contains(s, "\uFFFE") && !strings.Contains(s, "\uFFFF")
}

// preserveSpace is trimCellValue's test for xml:space="preserve".
func preserveSpace(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte{9, 10, 13, 32} {
		if s[0] == c || s[len(s)-1] == c {
			return true
		}
	}
	return false
}

// escapeCellText is excelize's trimCellValue(s, true) for a text within a
// cell's limit: XML-escaped (a line break kept), then bstrMarshal.
func escapeCellText(s string) string {
	var buf strings.Builder
	_ = xml.EscapeText(&buf, []byte(s)) // a strings.Builder: no error
	return bstrMarshal(strings.ReplaceAll(buf.String(), "&#xA;", "\n"))
}

var (
	bstrExp       = regexp.MustCompile(`_x[a-fA-F\d]{4}_`)
	bstrEscapeExp = regexp.MustCompile(`x[a-fA-F\d]{4}_`)
)

// bstrMarshal is excelize's (lib.go, BSD-3-Clause): a literal _xHHHH_ in a
// text is written _x005F_xHHHH_, so no reader takes it for an escaped
// character.
func bstrMarshal(s string) (result string) {
	matches, l, cursor := bstrExp.FindAllStringSubmatchIndex(s, -1), len(s), 0
	for _, match := range matches {
		result += s[cursor:match[0]]
		subStr := s[match[0]:match[1]]
		if subStr == "_x005F_" {
			cursor = match[1]
			if match[1]+6 <= l && bstrEscapeExp.MatchString(s[match[1]:match[1]+6]) {
				_, err := strconv.Unquote(`"\u` + s[match[1]+1:match[1]+5] + `"`)
				if err == nil {
					result += subStr + "x005F" + subStr
					continue
				}
			}
			result += subStr + "x005F_"
			continue
		}
		if bstrExp.MatchString(subStr) {
			cursor = match[1]
			if _, err := strconv.Unquote(`"\u` + s[match[0]+2:match[1]-1] + `"`); err == nil {
				result += "_x005F" + subStr
				continue
			}
		}
	}
	if cursor < l {
		result += s[cursor:]
	}
	return result
}

// Excel's serial dates, as excelize's timeToExcelTime computes them
// (date.go, BSD-3-Clause) for the 1900 date system.
const (
	dayNanoseconds = 24 * time.Hour
	maxDuration    = 290 * 364 * dayNanoseconds
)

var (
	excelMinTime1900      = time.Date(1899, time.December, 31, 0, 0, 0, 0, time.UTC)
	excelBuggyPeriodStart = time.Date(1900, time.March, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
)

func excelSerial(t time.Time) float64 {
	if t.Before(excelMinTime1900) {
		return 0
	}
	tt, diff, result := t, t.Sub(excelMinTime1900), 0.0
	for diff >= maxDuration {
		result += float64(maxDuration / dayNanoseconds)
		tt = tt.Add(-maxDuration)
		diff = tt.Sub(excelMinTime1900)
	}
	rem := diff % dayNanoseconds
	result += float64(diff-rem)/float64(dayNanoseconds) + float64(rem)/float64(dayNanoseconds)
	if t.After(excelBuggyPeriodStart) {
		result++
	}
	return result
}

// spliceZip is the zip writer excelize writes the workbook with: a sheet
// (its frame: the header row, widths, panes, table) is held, and the
// sheet's rows are put in before its </sheetData>, their deflated segment
// copied from the spill between the frame's two halves, deflated alone.
type spliceZip struct {
	zw      *zip.Writer
	spill   *os.File
	parts   []sheetPart
	sheet   int           // the sheet being held (1-based), 0 for none
	name    string        // its part's name
	frame   *bytes.Buffer // its frame
	spliced int
}

func (z *spliceZip) Create(name string) (io.Writer, error) {
	if err := z.splice(); err != nil {
		return nil, err
	}
	var n int
	if _, err := fmt.Sscanf(name, "xl/worksheets/sheet%d.xml", &n); err == nil && n >= 1 && n <= len(z.parts) &&
		name == "xl/worksheets/sheet"+strconv.Itoa(n)+".xml" {
		z.sheet, z.name, z.frame = n, name, new(bytes.Buffer)
		return z.frame, nil
	}
	return z.zw.Create(name)
}

func (z *spliceZip) AddFS(fsys fs.FS) error { return z.zw.AddFS(fsys) }

func (z *spliceZip) Close() error {
	if err := z.splice(); err != nil {
		return err
	}
	return z.zw.Close()
}

// splice writes the held sheet: its frame up to </sheetData>, its rows,
// the rest of its frame, as one deflate stream and one CRC.
func (z *spliceZip) splice() error {
	if z.sheet == 0 {
		return nil
	}
	p, frame := z.parts[z.sheet-1], z.frame.Bytes()
	z.sheet, z.frame = 0, nil
	at := bytes.LastIndex(frame, []byte("</sheetData>"))
	if at < 0 {
		return errors.New("write workbook: a sheet without </sheetData>")
	}
	head, tail := frame[:at], frame[at:]
	var headZ, tailZ bytes.Buffer
	if err := deflateSegment(&headZ, head, false); err != nil {
		return err
	}
	if err := deflateSegment(&tailZ, tail, true); err != nil {
		return err
	}
	crc := crc32Combine(crc32.ChecksumIEEE(head), p.crc, p.raw)
	crc = crc32Combine(crc, crc32.ChecksumIEEE(tail), int64(len(tail)))
	raw := int64(len(head)) + p.raw + int64(len(tail))
	w, err := z.zw.CreateRaw(&zip.FileHeader{
		Name: z.name, Method: zip.Deflate,
		CRC32: crc, CompressedSize64: uint64(headZ.Len()) + uint64(p.size) + uint64(tailZ.Len()), //nolint:gosec // sizes are not negative
		UncompressedSize64: uint64(raw), //nolint:gosec // sizes are not negative
	})
	if err != nil {
		return err
	}
	if _, err := w.Write(headZ.Bytes()); err != nil {
		return err
	}
	if _, err := io.Copy(w, io.NewSectionReader(z.spill, p.off, p.size)); err != nil {
		return err
	}
	if _, err := w.Write(tailZ.Bytes()); err != nil {
		return err
	}
	z.spliced++
	return nil
}

// deflateSegment deflates b as a segment of a stream: ended by a sync
// flush, or, for the last, by the final block.
func deflateSegment(w io.Writer, b []byte, last bool) error {
	fw, err := flate.NewWriter(w, xlsxLevel)
	if err != nil {
		return err
	}
	if _, err := fw.Write(b); err != nil {
		return err
	}
	if last {
		return fw.Close()
	}
	return fw.Flush()
}

// crc32Combine is the CRC-32 (IEEE) of a followed by b, from their CRCs
// and b's length (zlib's crc32_combine): a sheet's rows are checksummed
// as they are written, before the frame around them exists.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.IEEE // the operator for one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(even[:], odd[:]) // two zero bits
	gf2Square(odd[:], even[:]) // four
	for {
		gf2Square(even[:], odd[:]) // the first pass: one zero byte
		if lenB&1 != 0 {
			crcA = gf2Times(even[:], crcA)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
		gf2Square(odd[:], even[:])
		if lenB&1 != 0 {
			crcA = gf2Times(odd[:], crcA)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(mat []uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat []uint32) {
	for n := range 32 {
		square[n] = gf2Times(mat, mat[n])
	}
}
