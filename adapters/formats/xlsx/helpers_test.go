package xlsx

import (
	"fmt"
	"strings"
)

// Shared strings and styles of the kinds workbooks: style 1 is a date,
// 2 a date-time, 3 a time, 4 a duration, 5 a number, 6 a custom date.
const (
	xlsxKindsStrings = `<si><t>name</t></si><si><t xml:space="preserve"> padded </t></si><si><r><rPr><b/></rPr><t>rich </t></r><r><t>text</t></r></si>` +
		`<si><t>base</t><rPh sb="0" eb="1"><t>ふりがな</t></rPh></si><si><t>a_x000D_b_x005F_x0008_c</t></si><si/><si><t><![CDATA[<cdata & more>]]></t></si><si><t>&lt;&amp;&gt;&#233;&#x1F600;</t></si><si><t>line1` + "\r\n" + `line2</t></si><si><t>001</t></si>`
	xlsxKindsStyles = `<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd;@"/></numFmts><cellXfs count="7"><xf numFmtId="14"/><xf numFmtId="14"/><xf numFmtId="22"/><xf numFmtId="21"/><xf numFmtId="46"/><xf numFmtId="2"/><xf numFmtId="164"/></cellXfs>`
)

var xlsxKinds = map[string]string{
	"shared and inline strings": `<sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c><c r="E1" t="s"><v>4</v></c></row>` +
		`<row r="2"><c r="A2" t="s"><v>5</v></c><c r="B2" t="s"><v>6</v></c><c r="C2" t="s"><v>7</v></c><c r="D2" t="s"><v>8</v></c><c r="E2" t="s"><v>9</v></c></row>` +
		`<row r="3"><c r="A3" t="inlineStr"><is><t>inline</t></is></c><c r="B3" t="inlineStr"><is><r><t>in</t></r><r><rPr/><t>rich</t></r></is></c><c r="C3" t="inlineStr"><is><t><![CDATA[x<y]]></t></is></c><c r="D3" t="inlineStr"><v>as v</v></c><c r="E3" t="inlineStr"><is><t>_x0041_&amp;</t></is></c></row></sheetData>`,
	"numbers booleans errors formulas": `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c><c r="B1" t="inlineStr"><is><t>b</t></is></c><c r="C1" t="inlineStr"><is><t>e</t></is></c><c r="D1" t="inlineStr"><is><t>f</t></is></c></row>` +
		`<row r="2"><c r="A2"><v>274.65999999999997</v></c><c r="B2" t="b"><v>1</v></c><c r="C2" t="e"><v>#DIV/0!</v></c><c r="D2"><f>A2*2</f><v>549.31999999999994</v></c></row>` +
		`<row r="3"><c r="A3" t="n"><v>9223372036854775807</v></c><c r="B3" t="b"><v>0</v></c><c r="C3" t="e"><f>1/0</f><v>#N/A</v></c><c r="D3" t="str"><f>"x"&amp;"y"</f><v>xy</v></c></row>` +
		`<row r="4"><c r="A4"><v>15.0</v></c><c r="B4" t="b"><v>yes</v></c><c r="C4"><v>-0.000001234</v></c><c r="D4" t="str"><f>""</f><v></v></c><c r="E4"><f>1+1</f></c></row>` +
		`<row r="5"><c r="A5"><v>1E+300</v></c><c r="B5"><v> 12 </v></c><c r="C5"><v>0012</v></c><c r="D5"><v>1_000</v></c><c r="E5" s="5"><v>3.14159265358979323</v></c></row>` +
		`<row r="6"><c r="A6"><v>-123456789012345</v></c><c r="B6"><v>123456789012345678</v></c><c r="C6"><v>NaN</v></c><c r="D6"><v>0x10</v></c><c r="E6"><v>.5</v></c></row></sheetData>`,
	"dates": `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>d</t></is></c><c r="B1" t="inlineStr"><is><t>dt</t></is></c><c r="C1" t="inlineStr"><is><t>t</t></is></c><c r="D1" t="inlineStr"><is><t>dur</t></is></c><c r="E1" t="inlineStr"><is><t>custom</t></is></c></row>` +
		`<row r="2"><c r="A2" s="1"><v>45322</v></c><c r="B2" s="2"><v>45322.432</v></c><c r="C2" s="3"><v>0.5</v></c><c r="D2" s="4"><v>1.5</v></c><c r="E2" s="6"><v>45322</v></c></row>` +
		`<row r="3"><c r="A3" s="1"><v>60</v></c><c r="B3" s="2"><v>59.75</v></c><c r="C3" s="3"><v>-1</v></c><c r="D3" s="1" t="s"><v>9</v></c><c r="E3" s="6"><v>3000000</v></c></row>` +
		`<row r="4"><c r="A4" s="1" t="d"><v>2024-01-31T00:00:00Z</v></c><c r="B4" s="2" t="d"><v>2024-01-31T10:22:00Z</v></c><c r="C4" t="d"><v>2024-01-31T10:22:00Z</v></c><c r="D4" s="0"><v>45322</v></c><c r="E4" s="99"><v>45322</v></c></row>` +
		`<row r="5"><c r="A5" s="1"><v>1</v></c><c r="B5" s="2"><v>45322.999999999</v></c><c r="C5" s="3"><v>0.0000116</v></c><c r="D5" s="1" t="b"><v>1</v></c><c r="E5" s="1" t="str"><v>45322</v></c></row></sheetData>`,
	"sparse rows and gaps": `<dimension ref="A1:H12"/><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="D1" t="inlineStr"><is><t>d</t></is></c></row>` +
		`<row r="3"><c r="B3"><v>2</v></c><c r="D3"/><c r="E3" s="1"/></row><row r="4" spans="1:8"/><row r="7"><c r="H7"><v>8</v></c></row>` +
		`<row><c><v>1</v></c><c><v>2</v></c><c r="E8"><v>5</v></c><c><v>6</v></c></row><row r="12"><c r="A12"><v>12</v></c></row></sheetData>`,
	"very wide row": wideRow(1500),
	"markup": `<sheetPr><tabColor rgb="FF00FF00"/></sheetPr><dimension ref="A1:B3"/><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15" x14ac:dyDescent="0.25"/>` +
		`<!-- a comment --><sheetData><row r="1" spans="1:2" x14ac:dyDescent="0.25"><c r="A1" t="inlineStr"><is><t>a&gt;b</t></is></c><c r="B1" t="inlineStr"><is><t>c</t></is></c></row>` +
		`<row r="2" spans="1:2"><c r="A2" t="inlineStr" cm="1"><is><t>x</t></is></c><c r="B2"><f t="shared" ref="B2:B3" si="0">A2</f><v>1</v></c></row>` +
		`<row r="3"><c r="A3" t="inlineStr"><is><t xml:space="preserve">  </t></is></c><c r="B3"><f t="shared" si="0"/><v>2</v></c></row></sheetData>` +
		`<mc:AlternateContent><mc:Choice Requires="x14"><controls><control shapeId="1" r:id="rId9"/></controls></mc:Choice><mc:Fallback/></mc:AlternateContent>` +
		`<extLst><ext uri="{78C0D931-6437-407d-A8EE-F0AAD7539E65}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:conditionalFormattings><x14:conditionalFormatting><xm:sqref xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">A1:B3</xm:sqref></x14:conditionalFormatting></x14:conditionalFormattings></ext></extLst>`,
	"prefixed namespace": `<x:sheetData xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>p</x:t></x:is></x:c><x:c r="B1"><x:v>2</x:v></x:c></x:row><x:row r="2"><x:c r="A2" t="s"><x:v>0</x:v></x:c></x:row></x:sheetData>`,
}

func wideRow(n int) string {
	var b strings.Builder
	b.WriteString(`<sheetData><row r="1">`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<c t="inlineStr"><is><t>h%d</t></is></c>`, i)
	}
	b.WriteString(`</row><row r="2">`)
	for i := 1; i <= n; i += 7 {
		name := columnName(i)
		fmt.Fprintf(&b, `<c r="%s2"><v>%d</v></c>`, name, i)
	}
	b.WriteString(`</row></sheetData>`)
	return b.String()
}
