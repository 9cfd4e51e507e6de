package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"strings"
)

// zipMagic starts a zip file's first local file header.
var zipMagic = []byte("PK\x03\x04")

// HasWorkbook tells whether a zip file's first bytes hold an XLSX
// workbook. A head holding the whole file is read as a zip; otherwise the
// local file headers are walked: writers put xl/workbook.xml or other xl/
// parts first (or a workbook.xml at the root, which _rels/.rels points
// to), where word/ or ppt/ parts mean another Office document.
// Open checks the central directory again.
func HasWorkbook(head []byte) bool {
	if zr, err := zip.NewReader(bytes.NewReader(head), int64(len(head))); err == nil {
		_, err := workbookName(context.Background(), zr) // the head is in memory: nothing to cancel
		return err == nil
	}
	for p := head; len(p) >= 30 && bytes.HasPrefix(p, zipMagic); {
		nameLen := int(binary.LittleEndian.Uint16(p[26:]))
		extraLen := int(binary.LittleEndian.Uint16(p[28:]))
		size := int(binary.LittleEndian.Uint32(p[18:]))
		if 30+nameLen > len(p) {
			break
		}
		name := string(p[30 : 30+nameLen])
		switch {
		case strings.HasPrefix(name, "xl/"), name == "workbook.xml": // parts at the root, found through _rels/.rels
			return true
		case strings.HasPrefix(name, "word/"), strings.HasPrefix(name, "ppt/"):
			return false
		}
		if p[6]&0x08 != 0 { // sizes follow the data: the next header cannot be found
			return bytes.Contains(head, []byte("workbook.xml"))
		}
		next := 30 + nameLen + extraLen + size
		if next > len(p) || next < 0 {
			return bytes.Contains(head, []byte("workbook.xml"))
		}
		p = p[next:]
	}
	return bytes.Contains(head, []byte("workbook.xml"))
}
