package xlsx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// xmlScanner tokenizes the XML of a workbook part (a sheet, the shared
// strings, the styles) for the XLSX reader. It exists for speed: the
// generic token decoder of encoding/xml allocates a token, a name and its
// attributes for every element and dominated the time to read a sheet (a
// cell is five tokens). This one hands out slices of its own buffer, valid
// until the next call, and knows only what a part needs: elements,
// attributes, character data with the five entities and character
// references, CDATA, comments and processing instructions. A DOCTYPE is
// refused (no entity definitions, so no entity expansion bombs).
//
// It is strict where a lenient reader would lose data silently: tags must
// nest, the document must end with its root closed, text must be valid
// UTF-8 without control characters XML forbids, and entities must be
// known. Any of these is a syntax error, which the reader reports as an
// unreadable file.
type xmlScanner struct {
	r    io.Reader
	buf  []byte
	pos  int // first unread byte in buf
	end  int // end of the bytes read into buf
	eof  bool
	read int64 // bytes read from r

	// The current token.
	name        []byte // element name without its prefix (start and end tags)
	attrs       []byte // a start tag's attribute text
	selfClosing bool
	text        []byte // character data, raw (entities not yet decoded)
	cdata       bool   // text is from a CDATA section: no entities

	stack   []byte // open elements' qualified names, NUL-separated
	opened  bool   // the root element was seen
	inCDATA bool
	started bool // the byte order mark was looked for

	attrList []xmlAttr // the current start tag's attributes
	open     int       // elements open (the stack's depth)
}

type xmlToken int

const (
	tokEOF xmlToken = iota
	tokStart
	tokEnd
	tokText
)

// maxXMLTag bounds one tag (a start tag with its attributes): long
// attribute lists exist (a data validation over thousands of ranges) but
// not without bound.
const maxXMLTag = 8 << 20

// maxXMLAttrs bounds the attributes of one tag; OOXML elements have tens.
const maxXMLAttrs = 1024

var errXMLSyntax = errors.New("XML syntax error")

func syntaxError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errXMLSyntax, fmt.Sprintf(format, args...))
}

func newXMLScanner(r io.Reader, bufSize int) *xmlScanner {
	return &xmlScanner{r: r, buf: make([]byte, bufSize)}
}

// fill reads more bytes, keeping buf[pos:end]. It grows the buffer when it
// is full of unread bytes, up to limit; it returns false at the end of input.
func (s *xmlScanner) fill(limit int) (bool, error) {
	if s.eof {
		return false, nil
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= limit {
			return false, syntaxError("a tag or text run is over %d bytes", limit)
		}
		grown := make([]byte, min(2*len(s.buf), limit))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		s.read += int64(n)
		if err == io.EOF {
			s.eof = true
			return n > 0, nil
		}
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
}

// next moves to the next token.
func (s *xmlScanner) next() (xmlToken, error) {
	if !s.started {
		s.started = true
		if _, err := s.need(3); err != nil {
			return tokEOF, err
		}
		head := s.buf[s.pos:s.end]
		switch {
		case bytes.HasPrefix(head, []byte("\xEF\xBB\xBF")):
			s.pos += 3
		case bytes.HasPrefix(head, []byte("\xFE\xFF")), bytes.HasPrefix(head, []byte("\xFF\xFE")):
			return tokEOF, syntaxError("a part in UTF-16 (only UTF-8 is read)")
		}
	}
	for {
		if s.pos >= s.end {
			more, err := s.fill(maxXMLTag)
			if err != nil {
				return tokEOF, err
			}
			if !more {
				return s.atEOF()
			}
		}
		if s.inCDATA {
			return s.cdataText()
		}
		if s.buf[s.pos] != '<' {
			tok, ok, err := s.charData()
			if err != nil || ok {
				return tok, err
			}
			continue
		}
		tok, ok, err := s.markup()
		if err != nil || ok {
			return tok, err
		}
	}
}

func (s *xmlScanner) atEOF() (xmlToken, error) {
	if len(s.stack) > 0 || !s.opened {
		return tokEOF, syntaxError("unexpected end of the document (truncated?)")
	}
	return tokEOF, nil
}

// charData returns the text up to the next '<', without cutting an entity
// in two. ok is false when more input was needed and nothing is returned.
func (s *xmlScanner) charData() (xmlToken, bool, error) {
	rest := s.buf[s.pos:s.end]
	i := bytes.IndexByte(rest, '<')
	if i < 0 {
		i = len(rest)
		if amp := bytes.LastIndexByte(rest, '&'); amp >= 0 && bytes.IndexByte(rest[amp:], ';') < 0 && !s.eof {
			i = amp // an entity cut by the buffer's end
		}
		if i == 0 {
			if more, err := s.fill(maxXMLTag); err != nil || !more {
				if err == nil {
					err = syntaxError("unterminated entity")
				}
				return tokEOF, false, err
			}
			return tokEOF, false, nil
		}
	}
	s.text, s.cdata = rest[:i], false
	s.pos += i
	if len(s.stack) == 0 {
		if len(bytes.TrimLeft(s.text, " \t\r\n")) > 0 {
			return tokEOF, false, syntaxError("text outside the root element")
		}
		return tokEOF, false, nil
	}
	return tokText, true, nil
}

// cdataText returns the text of a CDATA section up to "]]>", in pieces.
func (s *xmlScanner) cdataText() (xmlToken, error) {
	rest := s.buf[s.pos:s.end]
	if i := bytes.Index(rest, []byte("]]>")); i >= 0 {
		s.text, s.cdata = rest[:i], true
		s.pos += i + 3
		s.inCDATA = false
		return tokText, nil
	}
	if s.eof {
		return tokEOF, syntaxError("unterminated CDATA section (truncated?)")
	}
	keep := min(len(rest), 2) // a "]]" that the next read may complete
	s.text, s.cdata = rest[:len(rest)-keep], true
	s.pos += len(rest) - keep
	if len(s.text) == 0 {
		if _, err := s.fill(maxXMLTag); err != nil {
			return tokEOF, err
		}
	}
	return tokText, nil
}

// need makes sure n bytes from pos are buffered; false at the end of input.
func (s *xmlScanner) need(n int) (bool, error) {
	for s.end-s.pos < n {
		more, err := s.fill(max(maxXMLTag, n))
		if err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// markup reads what starts with '<'. ok is false for markup that is no
// token (comments, processing instructions).
func (s *xmlScanner) markup() (xmlToken, bool, error) {
	if ok, err := s.need(2); err != nil {
		return tokEOF, false, err
	} else if !ok {
		return tokEOF, false, syntaxError("unexpected end of the document after '<' (truncated?)")
	}
	switch s.buf[s.pos+1] {
	case '?':
		return tokEOF, false, s.skipPast("?>")
	case '!':
		if ok, _ := s.need(9); ok && bytes.HasPrefix(s.buf[s.pos:s.end], []byte("<![CDATA[")) {
			if len(s.stack) == 0 {
				return tokEOF, false, syntaxError("CDATA outside the root element")
			}
			s.pos += 9
			s.inCDATA = true
			return tokEOF, false, nil
		}
		if ok, _ := s.need(4); ok && bytes.HasPrefix(s.buf[s.pos:s.end], []byte("<!--")) {
			return tokEOF, false, s.skipPast("-->")
		}
		return tokEOF, false, syntaxError("a DOCTYPE or unknown declaration")
	}
	tag, err := s.tag()
	if err != nil {
		return tokEOF, false, err
	}
	if tag[1] == '/' {
		qname := tag[2 : len(tag)-1]
		for len(qname) > 0 && isXMLSpace(qname[len(qname)-1]) {
			qname = qname[:len(qname)-1] // bytes.TrimRight builds its set of bytes on every call
		}
		top := s.top()
		if top == nil || !bytes.Equal(top, qname) {
			return tokEOF, false, syntaxError("element <%s> closed by </%s>", top, qname)
		}
		s.stack = s.stack[:len(s.stack)-len(top)-1]
		s.open--
		s.name = localName(qname)
		return tokEnd, true, nil
	}
	body := tag[1 : len(tag)-1]
	s.selfClosing = len(body) > 0 && body[len(body)-1] == '/'
	if s.selfClosing {
		body = body[:len(body)-1]
	}
	n := 0
	for n < len(body) && !isXMLSpace(body[n]) {
		n++
	}
	if n == 0 {
		return tokEOF, false, syntaxError("a tag without a name")
	}
	if len(s.stack) == 0 && s.opened {
		return tokEOF, false, syntaxError("a second root element")
	}
	s.opened = true
	qname := body[:n]
	if !validName(qname) {
		return tokEOF, false, syntaxError("an element name that is no XML name")
	}
	s.name, s.attrs = localName(qname), body[n:]
	if err := s.parseAttrs(); err != nil {
		return tokEOF, false, err
	}
	if !s.selfClosing {
		s.stack = append(append(s.stack, qname...), 0)
		s.open++
	}
	return tokStart, true, nil
}

// tag returns the whole tag at pos, '<' to '>', and moves past it. A '>'
// inside a quoted attribute value does not end it. The quote state is
// kept across reads, so a tag is scanned once however it is cut.
func (s *xmlScanner) tag() ([]byte, error) {
	i := 1
	var q byte
	for {
		rest := s.buf[s.pos:s.end]
		for i < len(rest) {
			if q != 0 {
				j := bytes.IndexByte(rest[i:], q)
				if j < 0 {
					i = len(rest)
					break
				}
				i, q = i+j+1, 0
				continue
			}
			// Tags are short: a plain loop beats IndexAny's set building.
			c := rest[i]
			i++
			switch c {
			case '>':
				s.pos += i
				return rest[:i], nil
			case '"', '\'':
				q = c
			}
		}
		more, err := s.fill(maxXMLTag)
		if err != nil {
			return nil, err
		}
		if !more {
			return nil, syntaxError("unexpected end of the document inside a tag (truncated?)")
		}
	}
}

// skipPast discards input up to and including end.
func (s *xmlScanner) skipPast(end string) error {
	for {
		rest := s.buf[s.pos:s.end]
		if i := bytes.Index(rest, []byte(end)); i >= 0 {
			s.pos += i + len(end)
			return nil
		}
		s.pos = max(s.pos, s.end-len(end)+1)
		more, err := s.fill(maxXMLTag)
		if err != nil {
			return err
		}
		if !more {
			return syntaxError("unterminated %q", end)
		}
	}
}

func (s *xmlScanner) top() []byte {
	if len(s.stack) == 0 {
		return nil
	}
	i := bytes.LastIndexByte(s.stack[:len(s.stack)-1], 0)
	return s.stack[i+1 : len(s.stack)-1]
}

// depth is the number of open elements.
func (s *xmlScanner) depth() int { return s.open }

// validName says b is an XML name, as encoding/xml (and so excelize)
// reads one: a damaged name makes the sheet unreadable rather than read
// differently. ASCII names, all of OOXML's, are checked here; a name with
// other characters is left to encoding/xml.
func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i, c := range b {
		switch {
		case c >= 0x80:
			return decoderName(b)
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == ':':
		case i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// decoderName says encoding/xml reads b as an element's name.
func decoderName(b []byte) bool {
	doc := append(append([]byte("<"), b...), "/>"...)
	_, err := xml.NewDecoder(bytes.NewReader(doc)).Token()
	return err == nil
}

func localName(qname []byte) []byte {
	if i := bytes.IndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

type xmlAttr struct{ key, val []byte }

// parseAttrs splits the current start tag's attributes, checking their
// syntax: every tag's, so that a damaged tag is an error even where the
// reader wants none of its attributes.
//
//nolint:gocognit // per tag of a sheet (BenchmarkXLSXReader): one pass over the tag's bytes
func (s *xmlScanner) parseAttrs() error {
	s.attrList = s.attrList[:0]
	a := s.attrs
	i := 0
	for {
		for i < len(a) && isXMLSpace(a[i]) {
			i++
		}
		if i == len(a) {
			return nil
		}
		// The name, up to '=' (spaces allowed before it).
		from := i
		for i < len(a) && a[i] != '=' && !isXMLSpace(a[i]) {
			switch a[i] {
			case '"', '\'', '<', '&', '>':
				return syntaxError("a malformed attribute in <%s>", s.name)
			}
			i++
		}
		key := a[from:i]
		for i < len(a) && isXMLSpace(a[i]) {
			i++
		}
		if !validName(key) || i == len(a) || a[i] != '=' {
			return syntaxError("a malformed attribute in <%s>", s.name)
		}
		i++
		for i < len(a) && isXMLSpace(a[i]) {
			i++
		}
		if i == len(a) || (a[i] != '"' && a[i] != '\'') {
			return syntaxError("an unquoted attribute value in <%s>", s.name)
		}
		q := a[i]
		i++
		from = i
		// A value with an entity, a control character or a byte past
		// ASCII is checked as text is: entities known, UTF-8, only the
		// characters XML allows.
		check := false
		for i < len(a) && a[i] != q {
			switch c := a[i]; {
			case c == '<':
				return syntaxError("'<' in an attribute value of <%s>", s.name)
			case c == '&' || c < 0x20 || c >= 0x80:
				check = true
			}
			i++
		}
		if i == len(a) {
			return syntaxError("an unterminated attribute value in <%s>", s.name)
		}
		val := a[from:i]
		i++
		if i < len(a) && !isXMLSpace(a[i]) {
			return syntaxError("attributes without space between them in <%s>", s.name)
		}
		if check {
			if _, err := appendText(nil, val, false); err != nil {
				return err
			}
		}
		if len(s.attrList) == maxXMLAttrs {
			return syntaxError("<%s> has over %d attributes", s.name, maxXMLAttrs)
		}
		s.attrList = append(s.attrList, xmlAttr{key, val})
	}
}

// attr finds an attribute of the current start tag by its name (without
// a prefix). The value is raw; attributes the reader uses hold no
// entities in practice, and a value with one is decoded.
func (s *xmlScanner) attr(name string) ([]byte, bool, error) {
	for _, a := range s.attrList {
		if string(a.key) == name {
			if bytes.IndexByte(a.val, '&') >= 0 {
				dec, err := appendText(nil, a.val, false)
				return dec, true, err
			}
			return a.val, true, nil
		}
	}
	return nil, false, nil
}

// prefixedAttr finds an attribute by its local name under a prefix
// (r:id, whatever the prefix is called).
func (s *xmlScanner) prefixedAttr(local string) []byte {
	for _, a := range s.attrList {
		if i := bytes.IndexByte(a.key, ':'); i > 0 && string(a.key[i+1:]) == local {
			return a.val
		}
	}
	return nil
}

// appendText appends character data to dst with entities and character
// references decoded (unless cdata) and line ends normalized as XML
// requires ("\r\n" and "\r" read "\n"). It checks that the text is UTF-8
// and holds only characters XML allows.
//
//nolint:gocognit // per byte of a sheet's text (BenchmarkXLSXReader): one pass, each byte's cases inline
func appendText(dst, raw []byte, cdata bool) ([]byte, error) {
	plain := true
	for _, c := range raw {
		if c < 0x20 || c >= 0x80 || c == '&' {
			plain = false
			break
		}
	}
	if plain {
		return append(dst, raw...), nil
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '&' && !cdata:
			semi := bytes.IndexByte(raw[i:], ';')
			if semi < 0 {
				return dst, syntaxError("unterminated entity")
			}
			r, ok := entity(raw[i+1 : i+semi])
			if !ok {
				return dst, syntaxError("unknown entity %q", raw[i:i+semi+1])
			}
			dst = utf8.AppendRune(dst, r)
			i += semi + 1
		case c == '\r':
			dst = append(dst, '\n')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
		case c < 0x20:
			if c != '\t' && c != '\n' {
				return dst, syntaxError("illegal character U+%04X", c)
			}
			dst = append(dst, c)
			i++
		case c < 0x80:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				return dst, syntaxError("invalid UTF-8")
			}
			if r == 0xFFFE || r == 0xFFFF {
				return dst, syntaxError("illegal character U+%04X", r)
			}
			dst = append(dst, raw[i:i+n]...)
			i += n
		}
	}
	return dst, nil
}

func entity(name []byte) (rune, bool) {
	switch string(name) {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	}
	if len(name) < 2 || name[0] != '#' {
		return 0, false
	}
	var n uint64
	var err error
	if name[1] == 'x' {
		n, err = strconv.ParseUint(string(name[2:]), 16, 32)
	} else {
		n, err = strconv.ParseUint(string(name[1:]), 10, 32)
	}
	if err != nil {
		return 0, false
	}
	r := rune(n)
	// The characters XML 1.0 allows.
	ok := r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
	return r, ok
}
