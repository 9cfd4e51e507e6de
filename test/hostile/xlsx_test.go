// Package hostile holds tests of the service against input built to hurt
// it: bombs, slow clients, forged values.
package hostile

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/domain/table"
)

const (
	uploadBudget = 1 << 20   // the bombs are uploads under 1 MB
	rssBudget    = 200 << 20 // none may raise the peak RSS by more
)

// bombPart is a part of a bomb workbook: its name and its unpacked text,
// written as head + body repeated + tail.
type bombPart struct {
	name             string
	head, body, tail string
	times            int
}

func repeat(name, head, body, tail string, unpacked int) bombPart {
	return bombPart{name, head, body, tail, unpacked / len(body)}
}

const (
	ns      = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relType = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

// bombWorkbook writes a one-sheet workbook whose parts are replaced or
// joined by the given ones, padded with incompressible bytes so that the
// whole stays inside the 100:1 ratio the reader checks first.
func bombWorkbook(t *testing.T, parts ...bombPart) string {
	t.Helper()
	byName := map[string]bombPart{}
	for _, p := range parts {
		byName[p.name] = p
	}
	plain := func(name, text string) bombPart { return bombPart{name: name, head: text} }
	all := []bombPart{
		plain("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`),
		plain("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+relType+`officeDocument" Target="xl/workbook.xml"/></Relationships>`),
		plain("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook `+ns+`><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`),
		plain("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="`+relType+`worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="`+relType+`styles" Target="styles.xml"/><Relationship Id="rId3" Type="`+relType+`sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId4" Type="`+relType+`theme" Target="theme/theme1.xml"/></Relationships>`),
		plain("xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet `+ns+`><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>45322</v></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>x</t></is></c><c r="B2" s="1"><v>45323</v></c></row></sheetData></worksheet>`),
		plain("xl/styles.xml", `<?xml version="1.0" encoding="UTF-8"?><styleSheet `+ns+`><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`),
		plain("xl/sharedStrings.xml", `<?xml version="1.0" encoding="UTF-8"?><sst `+ns+`><si><t>name</t></si></sst>`),
	}
	for i, p := range all {
		if b, ok := byName[p.name]; ok {
			all[i] = b
			delete(byName, p.name)
		}
	}
	for _, p := range parts {
		if _, ok := byName[p.name]; ok {
			all = append(all, p)
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	unpacked := 0
	for _, p := range all {
		w, err := zw.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		bw.WriteString(p.head)
		for range p.times {
			bw.WriteString(p.body)
		}
		bw.WriteString(p.tail)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		unpacked += len(p.head) + len(p.body)*p.times + len(p.tail)
	}
	// Stored random bytes: the file grows as much as it unpacks.
	if pad := unpacked/95 - buf.Len(); pad > 0 {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "xl/media/image1.bin", Method: zip.Store})
		if _, err := io.CopyN(w, rand.Reader, int64(pad)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() >= uploadBudget {
		t.Fatalf("the bomb is %d bytes, not under 1 MB", buf.Len())
	}
	p := filepath.Join(t.TempDir(), "bomb.xlsx")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestXLSXBombs: no workbook upload under 1 MB raises the reading
// process's peak RSS by more than 200 MB, whatever it unpacks to. Each is
// read to its end (or its refusal) in a child process of its own, which
// reports its VmHWM before and after.
func TestXLSXBombs(t *testing.T) {
	const mb = 1 << 20
	sheet := func(body string, unpacked int) bombPart {
		return repeat("xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet `+ns+`><sheetData>`, body, `</sheetData></worksheet>`, unpacked)
	}
	bigCell := `<row><c t="inlineStr"><is><t>` + strings.Repeat("a", 900<<10) + `</t></is></c></row>`
	wideRow := `<row>` + strings.Repeat(`<c t="inlineStr"><is><t>`+strings.Repeat("b", 60<<10)+`</t></is></c>`, 30) + `</row>`
	bombs := []struct {
		name  string
		parts []bombPart
	}{
		{"styles of empty xf", []bombPart{repeat("xl/styles.xml", `<?xml version="1.0"?><styleSheet `+ns+`><cellXfs>`, `<xf/>`, `</cellXfs></styleSheet>`, 60*mb)}},
		{"styles of fonts", []bombPart{repeat("xl/styles.xml", `<?xml version="1.0"?><styleSheet `+ns+`><fonts>`, `<font><b/><sz val="11"/></font>`, `</fonts></styleSheet>`, 60*mb)}},
		{"unreferenced theme", []bombPart{repeat("xl/theme/theme1.xml", `<?xml version="1.0"?><a:theme xmlns:a="x">`, `<a:x/>`, `</a:theme>`, 90*mb)}},
		{"unreferenced calc chain", []bombPart{repeat("xl/calcChain.xml", `<?xml version="1.0"?><calcChain `+ns+`>`, `<c r="A1" i="1"/>`, `</calcChain>`, 90*mb)}},
		{"shared strings of empty items", []bombPart{repeat("xl/sharedStrings.xml", `<?xml version="1.0"?><sst `+ns+`><si><t>name</t></si>`, `<si/>`, `</sst>`, 90*mb)}},
		{"shared strings of long items", []bombPart{repeat("xl/sharedStrings.xml", `<?xml version="1.0"?><sst `+ns+`><si><t>name</t></si>`, `<si><t>`+strings.Repeat("s", 512<<10)+`</t></si>`, `</sst>`, 90*mb)}},
		{"workbook of sheets", []bombPart{repeat("xl/workbook.xml", `<?xml version="1.0"?><workbook `+ns+`><sheets><sheet name="Data" sheetId="1" r:id="rId1"/>`, `<sheet/>`, `</sheets></workbook>`, 15*mb)}},
		{"sheet of empty cells", []bombPart{sheet(`<row>`+strings.Repeat(`<c/>`, 16000)+`</row>`, 90*mb)}},
		{"sheet of big cells", []bombPart{sheet(bigCell, 90*mb)}},
		{"sheet of wide rows", []bombPart{sheet(wideRow, 90*mb)}},
		{"sheet of empty rows", []bombPart{sheet(`<row/>`, 90*mb)}},
		{"one deep tag", []bombPart{sheet(`<row `+strings.Repeat(`a="1" `, 1<<20)+`/>`, 8*mb)}},
	}
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			path := bombWorkbook(t, b.parts...)
			fi, _ := os.Stat(path)
			before, after, outcome := readInChild(t, path)
			t.Logf("%d-byte upload: VmHWM %d -> %d MB; %s", fi.Size(), before>>20, after>>20, outcome)
			if after-before > rssBudget {
				t.Errorf("reading raised the peak RSS by %d MB; the budget is %d MB", (after-before)>>20, rssBudget>>20)
			}
		})
	}
}

const childEnv = "TABNORM_HOSTILE_XLSX"

// readInChild runs TestXLSXBombChild in a new process on the file.
func readInChild(t *testing.T, path string) (before, after int64, outcome string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestXLSXBombChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+path, "GOMAXPROCS=2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "HWM "); ok {
			f := strings.SplitN(rest, " ", 3)
			before, _ = strconv.ParseInt(f[0], 10, 64)
			after, _ = strconv.ParseInt(f[1], 10, 64)
			return before << 10, after << 10, f[2]
		}
	}
	t.Fatalf("child said nothing of its memory:\n%s", out)
	return 0, 0, ""
}

// TestXLSXBombChild reads the workbook its parent names and prints its
// peak RSS before and after; without a parent it does nothing.
func TestXLSXBombChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		return // run by TestXLSXBombs only
	}
	before := vmHWM(t)
	var outcome string
	r, err := formats.NewOpener().Open(context.Background(), path, "bomb.xlsx", table.ReadOptions{})
	if err == nil {
		n := 0
		for {
			if _, err = r.Next(); err != nil {
				break
			}
			n++
		}
		r.Close()
		outcome = fmt.Sprintf("%d records, then %v", n, err)
	} else {
		outcome = fmt.Sprintf("refused: %v", err)
	}
	fmt.Printf("HWM %d %d %s\n", before, vmHWM(t), outcome)
}

// vmHWM is the process's peak resident set size, in KiB.
func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
