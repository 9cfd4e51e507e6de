package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/gin-gonic/gin"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// How a response is represented on the wire (API.md §1, "Conditional and
// compressed responses"):
//
//   - Every JSON read (GET or HEAD answered 200 with application/json) is
//     buffered whole and carries a weak ETag, W/"<hash of the JSON>": any
//     change of the document changes it, and it is the same for the gzip,
//     zstd and identity codings of that document, which is what a weak
//     validator may do. If-None-Match with it answers 304 and no body.
//     JSON has no ranges, so a strong tag would buy nothing.
//   - Downloads keep their strong ETag (resultETag) and their ranges. When
//     one is compressed the tag is sent weak (W/ before the same value):
//     the compressed bytes are another representation, and If-Range, which
//     compares strongly, must never resume one with the other's bytes.
//     If-None-Match compares weakly, so either form answers 304.
//   - A body is compressed when the client asks (Accept-Encoding: zstd or
//     gzip, by their q-values; zstd on a tie), its type is text (JSON,
//     problem+json, JSON lines, CSV, text/*), it is at least minCompress
//     bytes, and neither the request has Range nor the response is a part
//     (206): a range is of the identity bytes. XLSX and Parquet are
//     compressed already and are sent as they are; so is an event stream,
//     whose events must leave when written.
//   - Every response of a compressible type, and every 304, says
//     Vary: Accept-Encoding.

// minCompress is the smallest body worth compressing: under it the
// coding's framing and the CPU cost more than the bytes saved.
const minCompress = 1024

var (
	bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	gzipPool   = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level: no error
		return w
	}}
	zstdPool = sync.Pool{New: func() any {
		// One goroutine per response and a 1 MiB window: bounded memory
		// per download, and well under the 8 MiB a browser accepts.
		w, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20),
			zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithLowerEncoderMem(true)) // valid options: no error
		return w
	}}
)

// negotiateEncoding picks the content coding of Accept-Encoding this
// server offers: "zstd", "gzip" or "" (identity).
func negotiateEncoding(accept string) string {
	if accept == "" {
		return ""
	}
	best, bestQ := "", 0.0
	for _, part := range strings.Split(accept, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				} else {
					q = 0
				}
			}
		}
		switch coding {
		case "x-gzip":
			coding = "gzip"
		case "*":
			coding = "gzip"
		}
		if (coding != "gzip" && coding != "zstd") || q <= 0 {
			continue
		}
		if q > bestQ || (q == bestQ && coding == "zstd") {
			best, bestQ = coding, q
		}
	}
	return best
}

// mediaType is a Content-Type's type/subtype, lower case, without its
// parameters: what mime.ParseMediaType gives, without its allocations on
// the path of every answer.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(mt)
	for i := 0; i < len(mt); i++ {
		if c := mt[i]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(mt)
		}
	}
	return mt
}

// compressibleType is whether a body of this Content-Type gains from a
// coding: text does; workbooks and Parquet files are compressed already.
func compressibleType(contentType string) bool {
	switch mt := mediaType(contentType); {
	case mt == "text/event-stream":
		return false
	case strings.HasPrefix(mt, "text/"):
		return true
	default:
		switch mt {
		case "application/json", "application/problem+json", "application/x-ndjson", "application/javascript", "image/svg+xml":
			return true
		}
	}
	return false
}

func isJSON(contentType string) bool { return mediaType(contentType) == "application/json" }

// jsonETag is the weak validator of a JSON document: its 64-bit xxHash
// and its length. It tells versions of one resource apart, and is the
// same on every node for the same bytes; it is no secret and no digest
// to trust (a weak tag promises no byte equality anyway).
func jsonETag(body []byte) string {
	var sum [12]byte
	binary.BigEndian.PutUint64(sum[:8], xxhash.Sum64(body))
	binary.BigEndian.PutUint32(sum[8:], uint32(len(body)))
	var tag [3 + 16 + 1]byte // W/" + base64 of 12 bytes + "
	copy(tag[:], `W/"`)
	base64.RawURLEncoding.Encode(tag[3:19], sum[:])
	tag[19] = '"'
	return string(tag[:])
}

// varyCoding is the Vary of an answer whose coding was negotiated,
// shared: a header slice nobody appends to in place.
var varyCoding = []string{"Accept-Encoding"}

func addVary(h http.Header) {
	if len(h["Vary"]) == 0 {
		h["Vary"] = varyCoding
		return
	}
	h.Add("Vary", "Accept-Encoding")
}

// etagMatches is If-None-Match's weak comparison (RFC 9110 §13.1.2): a
// listed tag matches when its opaque value equals etag's, weak or not.
func etagMatches(ifNoneMatch, etag string) bool {
	if ifNoneMatch == "" || etag == "" {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(ifNoneMatch, ",") {
		if t = strings.TrimSpace(t); t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}

// representation is the middleware of conditional JSON reads and content
// codings; see the comment at the top of this file.
func representation(c *gin.Context) {
	r := c.Request
	enc, reads := negotiateEncoding(r.Header.Get("Accept-Encoding")), r.Method == http.MethodGet || r.Method == http.MethodHead
	if enc == "" && !reads {
		c.Next() // nothing to compress, nothing to validate
		return
	}
	w := writerPool.Get().(*repWriter)
	*w = repWriter{ResponseWriter: c.Writer, req: r, enc: enc, reads: reads}
	c.Writer = w
	defer w.release()
	c.Next()
	w.finish()
	c.Writer = w.ResponseWriter
}

var writerPool = sync.Pool{New: func() any { return new(repWriter) }}

// repWriter holds a response back until it knows how to send it.
type repWriter struct {
	gin.ResponseWriter
	req     *http.Request
	enc     string // the negotiated coding, "" for identity
	reads   bool   // GET or HEAD: JSON answers are validated
	status  int
	started bool // the handler wrote or sent its header
	mode    repMode
	buf     *bytes.Buffer
	coder   io.WriteCloser
	reset   func() // returns coder to its pool
}

type repMode int

const (
	repUndecided repMode = iota
	repPass              // sent as the handler writes it
	repJSON              // buffered whole for its ETag, compressed or not at the end
	repPending           // buffered until it is worth compressing
	repCoding            // compressed as it is written
)

func (w *repWriter) WriteHeader(code int) {
	if !w.started {
		w.status = code
	}
}

func (w *repWriter) Status() int {
	if w.status != 0 {
		return w.status
	}
	return w.ResponseWriter.Status()
}

func (w *repWriter) Written() bool { return w.started }

func (w *repWriter) WriteHeaderNow() {
	if !w.started {
		w.started = true
		w.decide()
	}
}

func (w *repWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

func (w *repWriter) Write(p []byte) (int, error) {
	w.WriteHeaderNow()
	switch w.mode {
	case repJSON:
		return w.buf.Write(p)
	case repPending:
		n, _ := w.buf.Write(p) // a bytes.Buffer write fails only by panicking
		if w.buf.Len() >= minCompress {
			if err := w.startCoding(); err != nil {
				return 0, err
			}
		}
		return n, nil
	case repCoding:
		return w.coder.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush sends what is held: a streaming handler wants its bytes out.
func (w *repWriter) Flush() {
	w.WriteHeaderNow()
	switch w.mode {
	case repJSON:
		return // sent whole at the end
	case repPending:
		if err := w.startCoding(); err != nil {
			return
		}
		fallthrough
	case repCoding:
		if f, ok := w.coder.(interface{ Flush() error }); ok {
			_ = f.Flush() // a broken connection shows on the next write
		}
	}
	w.ResponseWriter.Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *repWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *repWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// decide chooses, from the status and the headers the handler set, how
// the body goes out; it sends the header unless the body is held back.
func (w *repWriter) decide() {
	h := w.Header()
	status := w.code()
	ct := h.Get("Content-Type")
	switch {
	case status == http.StatusNotModified:
		w.notModifiedHeaders(h.Get("ETag"))
		w.mode = repPass
	case w.reads && status == http.StatusOK && isJSON(ct) && h.Get("Content-Encoding") == "":
		w.mode = repJSON
	case w.enc != "" && w.codable(status, ct):
		addVary(h)
		if n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64); err == nil && n < minCompress {
			w.mode = repPass
		} else {
			w.mode = repPending
		}
	default:
		if compressibleType(ct) {
			addVary(h)
		}
		w.mode = repPass
	}
	if w.mode == repPending || w.mode == repJSON {
		w.buf = bufferPool.Get().(*bytes.Buffer)
		w.buf.Reset()
		return
	}
	w.ResponseWriter.WriteHeader(status)
	w.ResponseWriter.WriteHeaderNow()
}

// codable is whether this response may be compressed at all.
func (w *repWriter) codable(status int, contentType string) bool {
	h := w.Header()
	return status >= 200 && status != http.StatusNoContent && status != http.StatusPartialContent &&
		w.req.Header.Get("Range") == "" && h.Get("Content-Range") == "" && h.Get("Content-Encoding") == "" &&
		compressibleType(contentType)
}

// notModifiedHeaders makes a 304's headers those of the representation
// the client holds: when it holds a compressed download (a weak tag), the
// 304 names the weak tag too.
func (w *repWriter) notModifiedHeaders(etag string) {
	h := w.Header()
	addVary(h)
	if etag == "" || strings.HasPrefix(etag, "W/") {
		return
	}
	inm := w.req.Header.Get("If-None-Match")
	weakHeld, strongHeld := false, false
	for _, t := range strings.Split(inm, ",") {
		switch strings.TrimSpace(t) {
		case "W/" + etag:
			weakHeld = true
		case etag:
			strongHeld = true
		}
	}
	if weakHeld && !strongHeld {
		h.Set("ETag", "W/"+etag)
	}
}

// startCoding sends the header of a compressed body and what was held.
func (w *repWriter) startCoding() error {
	h := w.Header()
	h.Set("Content-Encoding", w.enc)
	h.Del("Content-Length")
	h.Del("Accept-Ranges") // ranges are of the identity bytes
	if etag := h.Get("ETag"); etag != "" && !strings.HasPrefix(etag, "W/") {
		h.Set("ETag", "W/"+etag)
	}
	w.ResponseWriter.WriteHeader(w.code())
	w.ResponseWriter.WriteHeaderNow()
	switch w.enc {
	case "zstd":
		z := zstdPool.Get().(*zstd.Encoder)
		z.Reset(w.ResponseWriter)
		w.coder, w.reset = z, func() { z.Reset(nil); zstdPool.Put(z) }
	default:
		g := gzipPool.Get().(*gzip.Writer)
		g.Reset(w.ResponseWriter)
		w.coder, w.reset = g, func() { g.Reset(io.Discard); gzipPool.Put(g) }
	}
	w.mode = repCoding
	held := w.buf.Bytes()
	w.buf.Reset()
	_, err := w.coder.Write(held)
	return err
}

// finish sends what the handler left held back, once it has returned.
func (w *repWriter) finish() {
	if w.mode == repUndecided {
		w.WriteHeaderNow()
	}
	switch w.mode {
	case repJSON:
		w.finishJSON()
	case repPending:
		// A declared length worth compressing that was not written is a
		// HEAD (http.ServeContent writes no body to one): its header is
		// the compressed GET's. Anything else held is under minCompress
		// and goes as it is.
		if n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64); err == nil && n >= minCompress {
			if err := w.startCoding(); err == nil {
				_ = w.coder.Close() // into a HEAD's void
			}
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(w.buf.Len()))
		w.ResponseWriter.WriteHeader(w.code())
		_, _ = w.ResponseWriter.Write(w.buf.Bytes()) // a broken connection: nothing to tell
	case repCoding:
		_ = w.coder.Close() // a broken connection: nothing to tell
	}
}

func (w *repWriter) finishJSON() {
	h := w.Header()
	body := w.buf.Bytes()
	etag := jsonETag(body)
	h.Set("ETag", etag)
	addVary(h)
	if etagMatches(w.req.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Type")
		h.Del("Content-Length")
		w.ResponseWriter.WriteHeader(http.StatusNotModified)
		w.ResponseWriter.WriteHeaderNow()
		return
	}
	if w.enc != "" && len(body) >= minCompress {
		_ = w.startCoding() // it writes what was held, the body; a broken connection: nothing to tell
		_ = w.coder.Close()
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = w.ResponseWriter.Write(body) // a broken connection: nothing to tell
}

// release returns what the answer borrowed to its pools. A handler that
// kept c.Writer past its return would write into a reused writer: none
// does (streams end before their handler returns).
func (w *repWriter) release() {
	if w.reset != nil {
		w.reset()
	}
	if w.buf != nil && w.buf.Cap() <= 1<<20 { // keep small buffers only
		bufferPool.Put(w.buf)
	}
	*w = repWriter{}
	writerPool.Put(w)
}
