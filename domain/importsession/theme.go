package importsession

import (
	"encoding/base64"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
)

// Palette is one set of the importer's colors, each a #rgb or #rrggbb
// color or "" for the default.
type Palette struct {
	Background  string // the page
	Surface     string // panels, the drop zone, the steps
	Text        string
	Muted       string // secondary text
	Border      string
	Primary     string // buttons, the current step, focus rings
	PrimaryText string // text on Primary
	Success     string // text saying a row is valid
	Warning     string // marks of what to check
	Error       string // text saying what is wrong
}

// Theme is how the importer looks. Every value is checked against a
// narrow pattern, since it reaches a style sheet, and the colors the end
// user reads are checked for contrast (WCAG AA).
type Theme struct {
	Palette             // the light colors
	Dark        Palette // the dark colors; defaults of their own, with Primary derived from the light one
	Radius      string  // a length: 0 to 99 px, rem or em
	Font        string  // a font-family list of plain names
	FontSize    string  // 12px to 24px, or 0.75rem to 1.5rem
	Density     string  // compact or comfortable
	ButtonStyle string  // solid or outline
	Mode        string  // light, dark or auto (the end user's system setting)
	LogoURL     string  // https on an allowed origin, or a data:image/… URL of at most 64 KB
	Title       string  // the importer's heading
}

// The theme's choices.
const (
	ModeLight = "light"
	ModeDark  = "dark"
	ModeAuto  = "auto"

	MaxLogoBytes = 64 << 10
	MaxTitle     = 80
)

// DefaultLight and DefaultDark are the palettes a theme's colors change.
var (
	DefaultLight = Palette{Background: "#ffffff", Surface: "#f3f5f9", Text: "#1a1d24", Muted: "#4a5160", Border: "#c9ced8",
		Primary: "#0b5cff", PrimaryText: "#ffffff", Success: "#17692f", Warning: "#8a5a00", Error: "#a3121f"}
	DefaultDark = Palette{Background: "#15181e", Surface: "#20242c", Text: "#e8eaf0", Muted: "#a9b0bf", Border: "#4a5262",
		Primary: "#7aa7ff", PrimaryText: "#0b1020", Success: "#6fd89a", Warning: "#f0b64a", Error: "#ff9090"}
)

var (
	colorPattern  = regexp.MustCompile(`^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	radiusPattern = regexp.MustCompile(`^[0-9]{1,2}(?:\.[0-9])?(?:px|rem|em)$|^0$`)
	fontPattern   = regexp.MustCompile(`^[A-Za-z0-9 ,'"-]{1,100}$`)
	sizePattern   = regexp.MustCompile(`^([0-9]{1,2}(?:\.[0-9]{1,3})?)(px|rem)$`)
	logoPattern   = regexp.MustCompile(`^data:image/(?:png|jpeg|gif|webp|svg\+xml);base64,([A-Za-z0-9+/]+={0,2})$`)
)

// colors lists a palette's colors by their names in the API.
func (p Palette) colors() [][2]string {
	return [][2]string{{"background", p.Background}, {"surface", p.Surface}, {"text", p.Text}, {"muted", p.Muted}, {"border", p.Border},
		{"primary", p.Primary}, {"primary_text", p.PrimaryText}, {"success", p.Success}, {"warning", p.Warning}, {"error", p.Error}}
}

// over returns p with the colors that o sets replaced.
func (p Palette) over(o Palette) Palette {
	pick := func(def, set string) string {
		if set != "" {
			return set
		}
		return def
	}
	return Palette{Background: pick(p.Background, o.Background), Surface: pick(p.Surface, o.Surface), Text: pick(p.Text, o.Text),
		Muted: pick(p.Muted, o.Muted), Border: pick(p.Border, o.Border), Primary: pick(p.Primary, o.Primary),
		PrimaryText: pick(p.PrimaryText, o.PrimaryText), Success: pick(p.Success, o.Success), Warning: pick(p.Warning, o.Warning),
		Error: pick(p.Error, o.Error)}
}

// Light is the light palette the importer shows: the defaults with the
// theme's colors.
func (t Theme) Light() Palette { return DefaultLight.over(t.Palette) }

// DarkPalette is the dark palette: the dark defaults with the theme's dark
// colors. When the theme gives a light Primary but no dark one, the dark
// primary is that brand color lightened until it reads on the dark
// background, with whichever of dark or white text reads best on it.
func (t Theme) DarkPalette() Palette {
	p := DefaultDark
	if t.Primary != "" && t.Dark.Primary == "" {
		bg := DefaultDark.over(t.Dark).Background
		p.Primary = lightenUntil(t.Primary, bg, 4.5)
		p.PrimaryText = DefaultDark.PrimaryText
		if contrast(p.Primary, "#ffffff") > contrast(p.Primary, p.PrimaryText) {
			p.PrimaryText = "#ffffff"
		}
	}
	return p.over(t.Dark)
}

// CheckTheme refuses a theme value that is not plainly a color, a length,
// a font list, one of its choices, a logo or a title, and a palette the
// importer shows whose text does not reach WCAG AA contrast (4.5:1)
// against what it is read on. A logo on the web must be on one of the
// session's allowed origins (the page's policy lets images load from
// them only).
func CheckTheme(t Theme, origins []string) error {
	for _, p := range []struct {
		prefix string
		pal    Palette
	}{{"theme.", t.Palette}, {"theme.dark.", t.Dark}} {
		for _, c := range p.pal.colors() {
			if c[1] != "" && !colorPattern.MatchString(c[1]) {
				return invalidField(p.prefix+c[0], "must be a color such as #0b5cff")
			}
		}
	}
	if err := checkShape(t); err != nil {
		return err
	}
	if err := checkLogo(t.LogoURL, origins); err != nil {
		return err
	}
	if err := checkContrast("theme.", t.Light(), t.ButtonStyle); err != nil && t.Mode != ModeDark {
		return err
	}
	if t.Mode == ModeDark || t.Mode == ModeAuto {
		return checkContrast("theme.dark.", t.DarkPalette(), t.ButtonStyle)
	}
	return nil
}

func checkShape(t Theme) error {
	switch {
	case t.Radius != "" && !radiusPattern.MatchString(t.Radius):
		return invalidField("theme.radius", "must be a length such as 6px")
	case t.Font != "" && !fontPattern.MatchString(t.Font):
		return invalidField("theme.font", "must be a list of font names such as Inter, sans-serif")
	case t.FontSize != "" && !fontSize(t.FontSize):
		return invalidField("theme.font_size", "must be 12px to 24px or 0.75rem to 1.5rem")
	case t.Density != "" && t.Density != "compact" && t.Density != "comfortable":
		return invalidField("theme.density", "must be compact or comfortable")
	case t.ButtonStyle != "" && t.ButtonStyle != "solid" && t.ButtonStyle != "outline":
		return invalidField("theme.button_style", "must be solid or outline")
	case t.Mode != "" && t.Mode != ModeLight && t.Mode != ModeDark && t.Mode != ModeAuto:
		return invalidField("theme.mode", "must be light, dark or auto")
	case t.Title != "" && (strings.TrimSpace(t.Title) == "" || utf8.RuneCountInString(t.Title) > MaxTitle || !utf8.ValidString(t.Title) ||
		strings.ContainsFunc(t.Title, unicode.IsControl)):
		return invalidField("theme.title", "must be 1 to 80 characters of text")
	}
	return nil
}

func fontSize(s string) bool {
	m := sizePattern.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	if m[2] == "px" {
		return n >= 12 && n <= 24
	}
	return n >= 0.75 && n <= 1.5
}

// checkLogo allows a data:image URL of at most 64 KB of image, or an
// https (loopback http) URL on one of the allowed origins.
func checkLogo(raw string, origins []string) error {
	if raw == "" {
		return nil
	}
	if strings.HasPrefix(raw, "data:") {
		m := logoPattern.FindStringSubmatch(raw)
		if m == nil {
			return invalidField("theme.logo_url", "must be a base64 data:image/png, jpeg, gif, webp or svg+xml URL")
		}
		img, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			return invalidField("theme.logo_url", "must be valid base64")
		}
		if len(img) > MaxLogoBytes {
			return invalidField("theme.logo_url", "must be an image of at most 64 KB")
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2048 || u.User != nil || strings.ContainsAny(raw, " \"'<>\\") {
		return invalidField("theme.logo_url", "must be an https URL or a data:image URL")
	}
	o, ok := origin(u.Scheme + "://" + u.Host)
	if !ok || !slices.Contains(origins, o) {
		return invalidField("theme.logo_url", "must be on one of the session's allowed_origins, or a data:image URL")
	}
	return nil
}

// checkContrast holds the pairs of a palette that the end user reads to
// WCAG AA's 4.5:1 for text: the text and the muted text on the page and
// on its panels, the primary text on a button, the success and error
// words on the page, and the primary color as text when buttons are
// outlined.
func checkContrast(prefix string, p Palette, buttons string) error {
	pairs := [][4]string{
		{"text", p.Text, "background", p.Background}, {"text", p.Text, "surface", p.Surface},
		{"muted", p.Muted, "background", p.Background}, {"muted", p.Muted, "surface", p.Surface},
		{"primary_text", p.PrimaryText, "primary", p.Primary},
		{"error", p.Error, "background", p.Background}, {"success", p.Success, "background", p.Background},
	}
	if buttons == "outline" {
		pairs = append(pairs, [4]string{"primary", p.Primary, "background", p.Background})
	}
	for _, pr := range pairs {
		if r := contrast(pr[1], pr[3]); r < 4.5 {
			msg := fmt.Sprintf("on %s%s (%s) has a contrast of %.2f:1; WCAG AA needs 4.5:1", prefix, pr[2], pr[3], math.Floor(r*100)/100)
			return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest,
				Message: fmt.Sprintf("The theme's %s%s (%s) %s.", prefix, pr[0], pr[1], msg),
				Fields:  []domain.FieldError{{Field: prefix + pr[0], Message: msg}}}
		}
	}
	return nil
}

// rgb reads a #rgb or #rrggbb color (already checked) as 0–255 values.
func rgb(hex string) [3]float64 {
	h := strings.TrimPrefix(hex, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	var out [3]float64
	for i := range 3 {
		v, _ := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		out[i] = float64(v)
	}
	return out
}

// luminance is WCAG 2's relative luminance of a color.
func luminance(c [3]float64) float64 {
	var l [3]float64
	for i, v := range c {
		s := v / 255
		if s <= 0.04045 {
			l[i] = s / 12.92
		} else {
			l[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// contrast is WCAG 2's contrast ratio of two colors, 1 to 21.
func contrast(a, b string) float64 {
	la, lb := luminance(rgb(a)), luminance(rgb(b))
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// Contrast is the WCAG 2 contrast ratio of two #rgb or #rrggbb colors.
func Contrast(a, b string) float64 { return contrast(a, b) }

// lightenUntil mixes color with white, in steps of 5%, until it has ratio
// against bg (white itself at the end).
func lightenUntil(color, bg string, ratio float64) string {
	c := rgb(color)
	for i := 0; i <= 20; i++ {
		f := float64(i) / 20
		var m [3]float64
		for k := range 3 {
			m[k] = math.Round(c[k] + (255-c[k])*f)
		}
		hex := fmt.Sprintf("#%02x%02x%02x", int(m[0]), int(m[1]), int(m[2]))
		if contrast(hex, bg) >= ratio {
			return hex
		}
	}
	return "#ffffff"
}
