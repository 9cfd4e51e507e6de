package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tabnorm/tabnorm/adapters/formats/detect"
	"github.com/tabnorm/tabnorm/domain/table"
)

// Unpacked-size budgets of the parts the reader inflates besides the sheet.
// A workbook's ratio and total limits alone let a 1 MB upload unpack to
// 100 MB, and parsers that build a tree spend tens of bytes of heap per
// unpacked byte (a 20 MB styles part of empty <xf/> took 1.7 GB). The
// budgets are far above what real workbooks hold; the styles and shared
// strings are read by the streaming scanner into compact tables, so their
// memory stays near their text size (shared strings) or one byte a cell
// format (styles). Parts nothing reads (themes, drawings, calcChain, other
// sheets) are never inflated.
const (
	workbookPartBudget      = 16 << 20 // xl/workbook.xml (sheet list, date system)
	relsPartBudget          = 1 << 20  // xl/_rels/workbook.xml.rels
	stylesPartBudget        = 64 << 20 // xl/styles.xml
	maxSharedStringsRefused = 1<<32 - 1
	maxCellFormats          = 1 << 20
	// The shared strings' text is kept in blocks of sharedBlockBytes, and
	// their ends in blocks of sharedEndsBlock: a table grows a block at a
	// time and never by copying all it holds (which held the old and the
	// new copy at once: 258 MB of peak RSS for a 1 MB upload of 18 million
	// empty items), and nothing is reserved up front from the part's size,
	// which is the file's claim (a reservation is zeroed, so paged in,
	// whenever the heap reuses freed memory, and that cannot be canceled).
	sharedBlockBytes = 1 << 20
	sharedEndsBlock  = 1 << 16
)

// Work budgets: what bounds the reader's work, besides the bytes it
// inflates (each part is inflated at most once, so the unpacked-size
// limits bound the work too). A workbook over one fails as unreadable,
// the message naming the budget (docs/security.md, "Work budgets").
const (
	// maxSheets bounds the sheet entries of the workbook's list: each is
	// a name to hold, match and report, and an empty sheet makes the
	// reader look at the next. Real workbooks have tens.
	maxSheets = 4096
	// maxFormatCodeBytes bounds one number format code (Excel writes at
	// most 255 characters). Each distinct format is classified once.
	maxFormatCodeBytes = 64 << 10
	// maxNumberFormats bounds the custom number formats of the styles.
	maxNumberFormats = 1 << 16
)

// workbookParts is what the reader takes from a workbook besides its sheet.
type workbookParts struct {
	sheets   []sheetRef
	date1904 bool
	styles   string // part names, "" when absent
	strings  string
}

type sheetRef struct {
	name   string
	part   string // zip entry of the sheet's XML
	hidden bool   // state="hidden" or "veryHidden": not shown to the workbook's reader
}

// zipEntry finds a part by name; zip names are case-sensitive but some
// writers differ in case from their own relationships, as Excel tolerates.
func zipEntry(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if f.Name == name {
			return f
		}
	}
	for _, f := range zr.File {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

// readPart inflates a small part whole, within its budget. The declared
// size is checked first; archive/zip also stops a part that inflates past
// its declared size, and checks its CRC at the end.
func readPart(ctx context.Context, f *zip.File, budget int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(budget) {
		return nil, fmt.Errorf("%w: the part %s unpacks to %d bytes; the limit is %d (zip bomb?)", table.ErrUnreadable, f.Name, f.UncompressedSize64, budget)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: part %s: %v", table.ErrUnreadable, f.Name, err)
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(io.LimitReader(detect.ContextReader(ctx, rc), budget+1))
	if err != nil {
		return nil, fmt.Errorf("%w: part %s: %w", table.ErrUnreadable, f.Name, err)
	}
	if int64(len(b)) > budget {
		return nil, fmt.Errorf("%w: the part %s unpacks to over %d bytes (zip bomb?)", table.ErrUnreadable, f.Name, budget)
	}
	return b, nil
}

// readWorkbook reads the sheet list, the date system and where the styles
// and shared strings are, from xl/workbook.xml and its relationships.
func readWorkbook(ctx context.Context, zr *zip.Reader) (*workbookParts, error) {
	name, err := workbookName(ctx, zr)
	if err != nil {
		return nil, err
	}
	wf := zipEntry(zr, name)
	if wf == nil {
		return nil, fmt.Errorf("%w: a zip file without a workbook is not XLSX", table.ErrUnsupportedFormat)
	}
	b, err := readPart(ctx, wf, workbookPartBudget)
	if err != nil {
		return nil, err
	}
	sheets, date1904, err := scanWorkbook(b)
	if err != nil {
		return nil, err
	}
	rels := map[string]relTarget{}
	dir, base := path.Split(name)
	if rf := zipEntry(zr, dir+"_rels/"+base+".rels"); rf != nil {
		if rels, err = readRels(ctx, rf, dir); err != nil {
			return nil, err
		}
	}
	parts := &workbookParts{date1904: date1904}
	for _, s := range sheets {
		rel, ok := rels[s.id]
		if !ok {
			return nil, fmt.Errorf("%w: sheet %q has no part in the workbook", table.ErrUnreadable, s.name)
		}
		parts.sheets = append(parts.sheets, sheetRef{name: s.name, part: rel.part, hidden: s.hidden})
	}
	for _, r := range rels {
		switch {
		case strings.HasSuffix(r.kind, "/styles"):
			parts.styles = r.part
		case strings.HasSuffix(r.kind, "/sharedStrings"):
			parts.strings = r.part
		}
	}
	return parts, nil
}

// sheetEntry is a sheet the workbook lists: its name, relationship id
// and whether it is hidden.
type sheetEntry struct {
	name, id string
	hidden   bool
}

// scanWorkbook reads the sheets and the date system of xl/workbook.xml.
func scanWorkbook(b []byte) (sheets []sheetEntry, date1904 bool, err error) {
	sc := newXMLScanner(bytes.NewReader(b), 64<<10)
	for {
		tok, err := sc.next()
		if err != nil {
			return nil, false, fmt.Errorf("%w: the workbook part: %v", table.ErrUnreadable, err)
		}
		if tok == tokEOF {
			return sheets, date1904, nil
		}
		if tok != tokStart {
			continue
		}
		// Only the workbook's own elements: an extension (x14:workbookPr
		// in extLst) shares their local names.
		level := sc.depth()
		if sc.selfClosing {
			level++
		}
		switch string(sc.name) {
		case "workbookPr":
			if level == 2 {
				v, _, _ := sc.attr("date1904")
				date1904 = string(v) == "1" || string(v) == "true"
			}
		case "sheet":
			if level != 3 {
				continue
			}
			if len(sheets) >= maxSheets {
				return nil, false, fmt.Errorf("%w: the workbook lists over %d sheets (the sheet entries budget)", table.ErrUnreadable, maxSheets)
			}
			name, _, _ := sc.attr("name")
			e := sheetEntry{name: string(name), id: string(sc.prefixedAttr("id"))}
			state, _, _ := sc.attr("state")
			e.hidden = len(state) > 0 && string(state) != "visible"
			sheets = append(sheets, e)
		}
	}
}

type relTarget struct{ kind, part string }

// officeDocument is the relationship type of a package's main part.
const officeDocument = "/officeDocument"

// workbookName finds the workbook part: xl/workbook.xml, where writers put
// it, else wherever the package relationships (_rels/.rels) say the main
// document is, as other readers follow them (some writers put every part
// at the zip's root).
func workbookName(ctx context.Context, zr *zip.Reader) (string, error) {
	if zipEntry(zr, "xl/workbook.xml") != nil {
		return "xl/workbook.xml", nil
	}
	if rf := zipEntry(zr, "_rels/.rels"); rf != nil {
		rels, err := readRels(ctx, rf, "")
		if err != nil {
			return "", err
		}
		for _, r := range rels {
			if strings.HasSuffix(r.kind, officeDocument) && zipEntry(zr, r.part) != nil {
				return r.part, nil
			}
		}
	}
	return "", fmt.Errorf("%w: a zip file without a workbook is not XLSX", table.ErrUnsupportedFormat)
}

// readRels reads a relationships part; dir is the folder of the part they
// belong to (targets are relative to it).
func readRels(ctx context.Context, f *zip.File, dir string) (map[string]relTarget, error) {
	b, err := readPart(ctx, f, relsPartBudget)
	if err != nil {
		return nil, err
	}
	var rels struct {
		Rel []struct {
			ID         string `xml:"Id,attr"`
			Type       string `xml:"Type,attr"`
			Target     string `xml:"Target,attr"`
			TargetMode string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(b, &rels); err != nil {
		return nil, fmt.Errorf("%w: the workbook's relationships: %v", table.ErrUnreadable, err)
	}
	out := make(map[string]relTarget, len(rels.Rel))
	for _, r := range rels.Rel {
		if r.TargetMode == "External" {
			continue
		}
		out[r.ID] = relTarget{kind: r.Type, part: partName(r.Target, dir)}
	}
	return out, nil
}

// partName resolves a relationship target of a part in folder dir (xl/
// for the workbook): relative to dir, or absolute from the package root.
func partName(target, dir string) string {
	target = strings.ReplaceAll(target, "\\", "/")
	if strings.HasPrefix(target, "/") {
		return path.Clean(strings.TrimPrefix(target, "/"))
	}
	if dir != "" && strings.HasPrefix(target, dir) { // written so by some tools, read so by Excel
		return path.Clean(target)
	}
	return path.Clean(dir + target)
}

// Date kinds of a cell format (readDateStyles): how a number in it reads.
const (
	fmtNumber   byte = iota // not a point in time: the number as stored
	fmtDate                 // a date
	fmtDateTime             // a date and a time of day
	fmtTime                 // a time of day only
)

func kindByte(kind string) byte {
	switch kind {
	case "date":
		return fmtDate
	case "datetime":
		return fmtDateTime
	case "time":
		return fmtTime
	}
	return fmtNumber
}

// cellStyles is what the reader takes from the styles part, by cell
// format (cellXfs index): how a number in it reads (fmtDate, …), and how
// it looks (lookBold, lookBorder), which header detection weighs.
type cellStyles struct {
	kinds []byte
	looks []byte
}

// How a cell format looks (cellStyles.looks): a bold font, a border on
// some edge.
const (
	lookBold byte = 1 << iota
	lookBorder
)

// readDateStyles scans the styles part for what the reader needs of it:
// which cell formats (cellXfs, by index) show a date or time, and which
// kind, and which have a bold font or a border. One byte each a cell
// format, a font and a border, whatever else the part holds; each number
// format is classified once, however many cell formats use it.
func readDateStyles(ctx context.Context, zr *zip.Reader, name string) (cellStyles, error) {
	if name == "" {
		return cellStyles{}, nil
	}
	f := zipEntry(zr, name)
	if f == nil {
		return cellStyles{}, nil
	}
	if f.UncompressedSize64 > stylesPartBudget {
		return cellStyles{}, fmt.Errorf("%w: the styles part unpacks to %d bytes; the limit is %d (zip bomb?)", table.ErrUnreadable, f.UncompressedSize64, stylesPartBudget)
	}
	rc, err := f.Open()
	if err != nil {
		return cellStyles{}, fmt.Errorf("%w: styles: %v", table.ErrUnreadable, err)
	}
	defer func() { _ = rc.Close() }()
	st := stylesScan{s: newXMLScanner(detect.ContextReader(ctx, rc), 64<<10), custom: map[int]string{}}
	for {
		tok, err := st.s.next()
		if err != nil {
			return cellStyles{}, fmt.Errorf("%w: styles: %w", table.ErrUnreadable, err)
		}
		if tok == tokEOF {
			break
		}
		if err := st.token(tok); err != nil {
			return cellStyles{}, err
		}
	}
	looks := make([]byte, len(st.xfs))
	for i, xf := range st.xfs {
		if int(xf.font) < len(st.bold) && st.bold[xf.font] {
			looks[i] |= lookBold
		}
		if int(xf.border) < len(st.borders) && st.borders[xf.border] {
			looks[i] |= lookBorder
		}
	}
	return cellStyles{kinds: classifyCellFormats(st.ids, st.custom, dateKind), looks: looks}, nil
}

// stylesScan is the state of the styles part's scan: the number formats,
// the fonts (bold or not) and borders (any edge drawn or not) in their
// lists, and each cell format's number format, font and border.
type stylesScan struct {
	s       *xmlScanner
	custom  map[int]string
	ids     []int32
	xfs     []xfLook
	bold    []bool
	borders []bool
	// Where the scan is: inside <cellXfs>, <fonts> (and a <font> of it),
	// <borders> (and a <border> of it). Fonts and borders elsewhere
	// (differential formats) are not the cells' own.
	inXfs, inFonts, inFont, inBorders, inBorder bool
}

type xfLook struct{ font, border int32 }

func (st *stylesScan) token(tok xmlToken) error {
	s := st.s
	name := string(s.name)
	if tok == tokEnd {
		switch name {
		case "cellXfs":
			st.inXfs = false
		case "fonts":
			st.inFonts = false
		case "font":
			st.inFont = false
		case "borders":
			st.inBorders = false
		case "border":
			st.inBorder = false
		}
		return nil
	}
	if tok != tokStart {
		return nil
	}
	switch {
	case name == "numFmt":
		return addNumberFormat(s, st.custom)
	case name == "cellXfs":
		st.inXfs = !s.selfClosing
	case name == "fonts":
		st.inFonts = !s.selfClosing
	case name == "borders":
		st.inBorders = !s.selfClosing
	case name == "font" && st.inFonts:
		if len(st.bold) >= maxCellFormats {
			return fmt.Errorf("%w: the styles hold over %d fonts", table.ErrUnreadable, maxCellFormats)
		}
		st.bold = append(st.bold, false)
		st.inFont = !s.selfClosing
	case name == "b" && st.inFont:
		v, _, _ := s.attr("val")
		st.bold[len(st.bold)-1] = len(v) == 0 || string(v) == "1" || string(v) == "true"
	case name == "border" && st.inBorders:
		if len(st.borders) >= maxCellFormats {
			return fmt.Errorf("%w: the styles hold over %d borders", table.ErrUnreadable, maxCellFormats)
		}
		st.borders = append(st.borders, false)
		st.inBorder = !s.selfClosing
	case st.inBorder && (name == "left" || name == "right" || name == "top" || name == "bottom" || name == "start" || name == "end"):
		if v, ok, _ := s.attr("style"); ok && len(v) > 0 && string(v) != "none" {
			st.borders[len(st.borders)-1] = true
		}
	case name == "xf" && st.inXfs:
		return st.cellFormat()
	}
	return nil
}

// cellFormat reads a <xf> of <cellXfs>: its number format, font and border.
func (st *stylesScan) cellFormat() error {
	s := st.s
	id, _, err := s.attr("numFmtId")
	if err != nil {
		return fmt.Errorf("%w: styles: %v", table.ErrUnreadable, err)
	}
	if len(st.ids) >= maxCellFormats {
		return fmt.Errorf("%w: the styles hold over %d cell formats (Excel allows 64,000)", table.ErrUnreadable, maxCellFormats)
	}
	n, _ := strconv.Atoi(string(id))
	st.ids = append(st.ids, int32(min(max(n, 0), 1<<30)))
	font, _, _ := s.attr("fontId")
	border, _, _ := s.attr("borderId")
	fi, _ := strconv.Atoi(string(font))
	bi, _ := strconv.Atoi(string(border))
	st.xfs = append(st.xfs, xfLook{int32(min(max(fi, 0), 1<<30)), int32(min(max(bi, 0), 1<<30))})
	return nil
}

// addNumberFormat keeps a <numFmt>'s code by its id, within the format
// budgets.
func addNumberFormat(s *xmlScanner, custom map[int]string) error {
	id, _, err1 := s.attr("numFmtId")
	code, _, err2 := s.attr("formatCode")
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("%w: styles: %v", table.ErrUnreadable, err)
	}
	if len(code) > maxFormatCodeBytes {
		return fmt.Errorf("%w: the styles hold a number format of %d bytes; the number format budget is %d bytes (Excel writes at most 255 characters)",
			table.ErrUnreadable, len(code), maxFormatCodeBytes)
	}
	n, err := strconv.Atoi(string(id))
	if err != nil {
		return nil
	}
	if _, seen := custom[n]; !seen && len(custom) >= maxNumberFormats {
		return fmt.Errorf("%w: the styles hold over %d number formats (the number formats budget)", table.ErrUnreadable, maxNumberFormats)
	}
	custom[n] = string(code)
	return nil
}

// classifyCellFormats gives each cell format its date kind, classifying
// (with classify, dateKind) each number format once: the work is the
// formats' text plus a lookup a cell format, not a format's text a cell
// format.
func classifyCellFormats(ids []int32, custom map[int]string, classify func(int, map[int]string) string) []byte {
	kinds := make([]byte, len(ids))
	known := make(map[int32]byte, min(len(custom)+64, len(ids)))
	for i, id := range ids {
		if i == 0 {
			continue // style 0 shows values as stored
		}
		k, ok := known[id]
		if !ok {
			k = kindByte(classify(int(id), custom))
			known[id] = k
		}
		kinds[i] = k
	}
	return kinds
}

// sharedStrings holds a workbook's shared strings as one run of text in
// blocks: a string costs its bytes and four more, where a tree of items
// costs tens of bytes per byte of XML. Item i is the text from the end of
// item i-1 to its own end, offsets into the run; block k holds the run's
// bytes from k*sharedBlockBytes. Blocks never move, so a string handed
// out stays valid.
type sharedStrings struct {
	blocks [][]byte
	ends   [][]uint32 // blocks of sharedEndsBlock item ends
	n      int        // items
	size   uint64     // bytes of text
	claim  uint64     // the part's unpacked size: the text is not longer
}

func (t *sharedStrings) end(i int) uint32 {
	return t.ends[i/sharedEndsBlock][i%sharedEndsBlock]
}

func (t *sharedStrings) get(i int) (string, bool) {
	if t == nil || i < 0 || i >= t.n {
		return "", false
	}
	from := uint32(0)
	if i > 0 {
		from = t.end(i - 1)
	}
	to := t.end(i)
	if from == to {
		return "", true
	}
	first, last := from/sharedBlockBytes, (to-1)/sharedBlockBytes
	if first == last {
		b := t.blocks[first][from%sharedBlockBytes : (to-1)%sharedBlockBytes+1]
		return unsafe.String(&b[0], len(b)), true
	}
	// An item across blocks (at most one a block) is joined in a copy.
	out := make([]byte, 0, to-from)
	for k := first; k <= last; k++ {
		lo, hi := uint32(0), uint32(len(t.blocks[k]))
		if k == first {
			lo = from % sharedBlockBytes
		}
		if k == last {
			hi = (to-1)%sharedBlockBytes + 1
		}
		out = append(out, t.blocks[k][lo:hi]...)
	}
	return unsafe.String(&out[0], len(out)), true
}

// unclaimed is how much more text the part's size leaves room for.
func (t *sharedStrings) unclaimed() uint64 { return t.claim - min(t.claim, t.size) }

// add appends an item's text.
func (t *sharedStrings) add(text []byte) error {
	if t.size+uint64(len(text)) > maxSharedStringsRefused {
		return fmt.Errorf("%w: the shared strings are over 4 GiB", table.ErrUnreadable)
	}
	for len(text) > 0 {
		k := len(t.blocks) - 1
		if k < 0 || len(t.blocks[k]) == sharedBlockBytes {
			// A block is as long as the rest of the part's text can be,
			// and grows by appending up to its size.
			t.blocks = append(t.blocks, make([]byte, 0, min(sharedBlockBytes, max(t.unclaimed(), uint64(len(text))))))
			k++
		}
		n := min(len(text), sharedBlockBytes-len(t.blocks[k]))
		t.blocks[k] = append(t.blocks[k], text[:n]...)
		t.size += uint64(n)
		text = text[n:]
	}
	if t.n%sharedEndsBlock == 0 { // an item takes at least 5 bytes of the part, <si/>
		t.ends = append(t.ends, make([]uint32, 0, min(sharedEndsBlock, max(1, t.unclaimed()/5))))
	}
	k := len(t.ends) - 1
	t.ends[k] = append(t.ends[k], uint32(t.size))
	t.n++
	return nil
}

// readSharedStrings scans the shared strings part.
func readSharedStrings(ctx context.Context, zr *zip.Reader, name string, limits table.Limits) (*sharedStrings, error) {
	if name == "" {
		return nil, nil
	}
	f := zipEntry(zr, name)
	if f == nil {
		return nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: shared strings: %v", table.ErrUnreadable, err)
	}
	defer func() { _ = rc.Close() }()
	s := newXMLScanner(detect.ContextReader(ctx, rc), 64<<10)
	// The part's size bounds its text; its declared counts are not trusted.
	size := min(f.UncompressedSize64, maxSharedStringsRefused)
	t := &sharedStrings{claim: size}
	var item []byte
	for {
		tok, err := s.next()
		if err != nil {
			return nil, fmt.Errorf("%w: shared strings: %w", table.ErrUnreadable, err)
		}
		if tok == tokEOF {
			break
		}
		if tok == tokStart && string(s.name) == "si" {
			item = item[:0]
			if !s.selfClosing {
				if item, err = readStringItem(s, item, limits.MaxCellBytes); err != nil {
					return nil, fmt.Errorf("%w: shared string %d: %w", table.ErrUnreadable, t.n, err)
				}
			}
			if err := t.add(bstrUnmarshal(item)); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// readStringItem reads the text of a string item (<si> or <is>) up to its
// end tag, already opened: its own <t> and the <t> of its rich-text runs
// <r>, in document order; phonetic runs (<rPh>) are not the cell's text.
//
//nolint:gocognit // per shared string and inline string (BenchmarkXLSXReader): one pass over the item's tokens
func readStringItem(s *xmlScanner, dst []byte, maxBytes int) ([]byte, error) {
	base := s.depth()
	inT, skip := 0, 0 // depth of the open <t>, of an <rPh>
	for {
		tok, err := s.next()
		if err != nil {
			return dst, err
		}
		d := s.depth()
		switch tok {
		case tokEOF:
			return dst, syntaxError("unexpected end of the document")
		case tokStart:
			switch {
			case skip > 0 || s.selfClosing:
			case string(s.name) == "rPh":
				skip = d
			case string(s.name) == "t" && inT == 0 && (d == base+1 || d == base+2):
				inT = d
			}
		case tokEnd:
			if d < base {
				return dst, nil
			}
			if d < inT {
				inT = 0
			}
			if d < skip {
				skip = 0
			}
		case tokText:
			if inT > 0 && skip == 0 {
				if dst, err = appendText(dst, s.text, s.cdata); err != nil {
					return dst, err
				}
				if len(dst) > maxBytes {
					return dst, fmt.Errorf("a string over %d bytes", maxBytes)
				}
			}
		}
	}
}

// bstrUnmarshal undoes the _xHHHH_ escapes spreadsheet writers use for
// characters XML cannot hold, as excelize does: _x005F_ is a literal
// underscore, and an escape of a surrogate half is dropped.
func bstrUnmarshal(s []byte) []byte {
	if !bytes.Contains(s, []byte("_x")) {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] == '_' && i+7 <= len(s) && s[i+1] == 'x' && s[i+6] == '_' && isHex4(s[i+2:i+6]) {
			n, _ := strconv.ParseUint(string(s[i+2:i+6]), 16, 32)
			switch r := rune(n); {
			case r == '_':
				out = append(out, '_')
			case r >= 0xD800 && r <= 0xDFFF:
			default:
				out = utf8.AppendRune(out, r)
			}
			i += 7
			continue
		}
		out = append(out, s[i])
		i++
	}
	return out
}

// isHex4 tells four hexadecimal digits (the JSON-lines reader has its own
// for \u escapes).
func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
