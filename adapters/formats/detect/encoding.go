package detect

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/transform"

	"github.com/tabnorm/tabnorm/domain/table"
)

// Text encodings by their canonical names (table.LookupEncoding's).
const (
	// UTF8 is UTF-8's canonical name.
	UTF8       = "UTF-8"
	encUTF16LE = "UTF-16LE"
	encUTF16BE = "UTF-16BE"
	encCP1252  = "windows-1252"
)

// How sure an encoding is (table.Detection.EncodingConfidence).
const (
	confGiven   = "given"
	confCertain = "certain"
	confGuessed = "guessed"
)

// TextEncoding is a text file's detected encoding: its canonical name,
// the BOM bytes to skip and how sure the detection is
// (table.Detection.EncodingConfidence).
type TextEncoding struct {
	Name       string
	BOM        int
	Confidence string
}

// Encoding tells the encoding of a text sample (see detectEncoding).
func Encoding(sample []byte) TextEncoding {
	var te TextEncoding
	te.Name, te.BOM, te.Confidence = detectEncoding(sample)
	return te
}

// Given is the encoding a reader uses when ReadOptions.Encoding names one
// (any IANA name; "" keeps te): its confidence is "given", and the BOM is
// skipped only when the given encoding is the detected one.
func (te TextEncoding) Given(name string) (TextEncoding, error) {
	if name == "" {
		return te, nil
	}
	_, e, ok := table.LookupEncoding(name)
	if !ok {
		return te, fmt.Errorf("%w: unknown encoding %q", table.ErrUnreadable, name)
	}
	if e != te.Name {
		te.BOM = 0
	}
	te.Name, te.Confidence = e, confGiven
	return te, nil
}

// detectEncoding tells the encoding of a text sample, how many BOM bytes
// to skip and how sure it is. A BOM is certain; so are NUL bytes at every
// other position (UTF-16, the half tells the byte order) and a sample
// that is valid UTF-8. Other bytes are guessed among the single- and
// multi-byte encodings of guessEncoding. sample may end mid-character.
func detectEncoding(sample []byte) (enc string, bom int, confidence string) {
	switch {
	case bytes.HasPrefix(sample, []byte{0xEF, 0xBB, 0xBF}):
		return UTF8, 3, confCertain
	case bytes.HasPrefix(sample, []byte{0xFF, 0xFE}):
		return encUTF16LE, 2, confCertain
	case bytes.HasPrefix(sample, []byte{0xFE, 0xFF}):
		return encUTF16BE, 2, confCertain
	}
	if enc := utf16ByNULs(sample); enc != "" {
		return enc, 0, confCertain
	}
	if !validUTF8Prefix(sample) {
		return guessEncoding(sample), 0, confGuessed
	}
	return UTF8, 0, confCertain
}

// candidate is an encoding guessEncoding weighs.
type candidate struct {
	name string
	enc  encoding.Encoding
	// multi: a multi-byte encoding, which must decode the sample without
	// an error to be considered at all.
	multi bool
}

// candidates in order of preference on equal scores: Windows-1252 first
// (the most common non-UTF-8 text; it decodes Latin-1's printable range
// identically, so © never becomes U+FFFD), then the Cyrillic and Greek
// single-byte maps, then the CJK multi-byte ones.
var candidates = []candidate{
	{encCP1252, charmap.Windows1252, false},
	{"windows-1251", charmap.Windows1251, false},
	{"KOI8-R", charmap.KOI8R, false},
	{"ISO-8859-5", charmap.ISO8859_5, false},
	{"windows-1253", charmap.Windows1253, false},
	{"ISO-8859-7", charmap.ISO8859_7, false},
	{"Shift_JIS", japanese.ShiftJIS, true},
	{"EUC-JP", japanese.EUCJP, true},
	{"GB18030", simplifiedchinese.GB18030, true},
	{"Big5", traditionalchinese.Big5, true},
	{"EUC-KR", korean.EUCKR, true},
}

// guessEncoding picks the candidate under which the sample's non-ASCII
// text reads most like words of one language: letters of one script in
// one case pattern (lower, Capitalized or UPPER), frequent letters of
// that script, no undefined bytes, symbols or accented-Latin runs that
// misread Cyrillic or Greek produce ("Ïðèâåò"). Windows-1252 wins ties.
func guessEncoding(sample []byte) string {
	sample = nonASCIILines(sample, guessBytes)
	best, bestScore := encCP1252, 0
	for i, c := range candidates {
		text, ok := decodeAll(sample, c.enc, c.multi)
		if !ok {
			continue
		}
		score := plausibility(text)
		if i == 0 {
			bestScore = score + guessMargin // another must read clearly better
		} else if score > bestScore {
			best, bestScore = c.name, score
		}
	}
	return best
}

// guessBytes bounds the text guessEncoding scores: the lines with
// non-ASCII bytes hold all the evidence, and a few KiB of them suffice.
const guessBytes = 8 << 10

// nonASCIILines returns the whole lines of sample that hold a byte over
// 0x7F, up to about limit bytes. Line feeds are line feeds in every
// candidate encoding (no multi-byte sequence holds 0x0A).
func nonASCIILines(sample []byte, limit int) []byte {
	var out []byte
	for len(sample) > 0 && len(out) < limit {
		line := sample
		if i := bytes.IndexByte(sample, '\n'); i >= 0 {
			line = sample[:i+1]
		}
		sample = sample[len(line):]
		for _, c := range line {
			if c >= 0x80 {
				out = append(out, line...)
				break
			}
		}
	}
	return out
}

// guessMargin is how much better than Windows-1252 another encoding must
// read: a Latin-1 file with a stray © or é must not become Cyrillic.
const guessMargin = 3

// decodeAll decodes sample; a multi-byte decoding that meets an invalid
// sequence (other than a character cut by the sample's end) fails.
func decodeAll(sample []byte, enc encoding.Encoding, multi bool) (string, bool) {
	for cut := 0; cut <= 3 && cut < len(sample); cut++ {
		out, err := enc.NewDecoder().Bytes(sample[:len(sample)-cut])
		if err == nil && (!multi || !bytes.ContainsRune(out, utf8.RuneError)) {
			return string(out), true
		}
		if !multi {
			return "", false
		}
	}
	return "", false
}

// frequent letters of the scripts the candidates decode to: the ten most
// common lower-case letters of Russian and Greek, and the most common
// Han characters (simplified and traditional).
var frequent = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range "оеаинтсрвлαοιετσνηυρ的一是不了在人有我他这這个個们們中来來上大为為和国國年月日市" {
		m[r] = true
	}
	return m
}()

// plausibility scores decoded text: only runs of non-ASCII characters
// count, each word (letters between non-letters) by its shape.
func plausibility(text string) int {
	score := 0
	rs := []rune(text)
	for i := 0; i < len(rs); {
		r := rs[i]
		if r < 0x80 {
			i++
			continue
		}
		if !unicode.IsLetter(r) {
			switch {
			case r == utf8.RuneError || r < 0xA0: // undefined byte or C1 control
				score -= 20
			case unicode.In(r, unicode.Sc, unicode.Pd, unicode.Pi, unicode.Pf, unicode.Zs) || strings.ContainsRune("¡©®°±²³·¹º»«¼½¾¿×÷…№€™§µ", r):
				// common punctuation and signs in any language
			default:
				score -= 2 // ¶, ±, box drawing, half-width forms …
			}
			i++
			continue
		}
		// A word: the letters from here, with ASCII letters around.
		j := i
		for j > 0 && unicode.IsLetter(rs[j-1]) {
			j--
		}
		k := i
		for k < len(rs) && unicode.IsLetter(rs[k]) {
			k++
		}
		score += wordScore(rs[j:k])
		i = k
	}
	return score
}

// wordScore: a word of n non-ASCII letters scores +n when plausible,
// -n when not; frequent letters add, CJK ideographs and kana score more.
func wordScore(w []rune) int {
	var c letterCounts
	for _, r := range w {
		c.add(r)
	}
	if c.other == 0 {
		return 0
	}
	if c.scripts() > 1 || (c.ascii > 0 && c.latin == 0) {
		return -3 * c.other // scripts mixed inside a word (ASCII letters are Latin)
	}
	score := 0
	switch {
	case c.latin > 0:
		// Accented letters sit among plain ones; a word of mostly
		// accented letters is misread Cyrillic or Greek.
		if c.latin > c.ascii && c.latin >= 2 {
			return -2 * c.latin
		}
		score = c.latin
	case c.cyr > 0 || c.greek > 0:
		if c.other == 1 && c.upper == 1 {
			return 0 // a lone capital letter: no evidence
		}
		score = c.cyr + c.greek + 2*c.freq
	default:
		score = 3*c.cjk + 4*c.kana + 4*c.hangul + 3*c.freq - 2*c.halfKana
	}
	// Case: lower, Capitalized or UPPER; anything else is suspect.
	if c.upper > 1 && c.lower > 0 {
		score -= 2 * c.other
	}
	return score
}

// letterCounts are a word's letters by script and case.
type letterCounts struct {
	ascii, other, upper, lower                     int
	latin, cyr, greek, cjk, hangul, kana, halfKana int // non-ASCII letters of each script
	freq                                           int // frequent letters of their script
}

func (c *letterCounts) add(r rune) {
	if r < 0x80 {
		c.ascii++
	} else {
		c.other++
	}
	switch {
	case unicode.Is(unicode.Latin, r):
		if r >= 0x80 {
			c.latin++
		}
	case unicode.Is(unicode.Cyrillic, r):
		c.cyr++
	case unicode.Is(unicode.Greek, r):
		c.greek++
	case unicode.Is(unicode.Hangul, r):
		c.hangul++
	case r >= 0xFF61 && r <= 0xFF9F:
		c.halfKana++
	case unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		c.kana++
	case unicode.Is(unicode.Han, r):
		c.cjk++
	}
	if unicode.IsUpper(r) {
		c.upper++
	} else if unicode.IsLower(r) {
		c.lower++
	}
	if frequent[r] {
		c.freq++
	}
}

// scripts counts the scripts of the word's non-ASCII letters (CJK, kana
// and Hangul as one).
func (c *letterCounts) scripts() int {
	n := 0
	for _, k := range []int{c.latin, c.cyr, c.greek, c.hangul + c.kana + c.cjk + c.halfKana} {
		if k > 0 {
			n++
		}
	}
	return n
}

// utf16ByNULs recognises BOM-less UTF-16 of mostly Latin text: nearly
// every high byte is zero.
func utf16ByNULs(b []byte) string {
	n := min(len(b), 4096) &^ 1
	if n < 4 {
		return ""
	}
	var evenNUL, oddNUL int
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			evenNUL++
		}
		if b[i+1] == 0 {
			oddNUL++
		}
	}
	pairs := n / 2
	switch {
	case oddNUL*10 >= pairs*7 && evenNUL*10 < pairs:
		return encUTF16LE
	case evenNUL*10 >= pairs*7 && oddNUL*10 < pairs:
		return encUTF16BE
	}
	return ""
}

// validUTF8Prefix is utf8.Valid allowing a character cut at the end.
func validUTF8Prefix(b []byte) bool {
	for i := 0; i < 3 && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return true
		}
		r, _ := utf8.DecodeLastRune(b)
		if r != utf8.RuneError {
			return false
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// Decoder wraps r so it yields UTF-8. enc is a canonical name.
func Decoder(r io.Reader, enc string) io.Reader {
	if enc == UTF8 {
		return r
	}
	e, _, ok := table.LookupEncoding(enc)
	if !ok {
		return r
	}
	return transform.NewReader(r, e.NewDecoder())
}

// DecodeSample decodes a sample for sniffing (invalid tails are dropped).
func DecodeSample(sample []byte, enc string, bom int) string {
	out, _ := io.ReadAll(io.LimitReader(Decoder(bytes.NewReader(sample[bom:]), enc), int64(len(sample))*3))
	return string(out)
}
