package importsession

import (
	"errors"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

func TestContrast_wcagValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want float64
	}{{"#000", "#fff", 21}, {"#ffffff", "#ffffff", 1}, {"#767676", "#ffffff", 4.54}, {"#777777", "#ffffff", 4.48}} {
		if got := Contrast(c.a, c.b); got < c.want-0.01 || got > c.want+0.01 {
			t.Errorf("contrast(%s, %s) = %.3f, want %.2f", c.a, c.b, got, c.want)
		}
	}
}

// TestCheckTheme: every token is checked, and a failing contrast pair is
// named in the field and the message.
func TestCheckTheme(t *testing.T) {
	t.Parallel()
	origins := []string{"https://app.example.com"}
	full := Theme{Palette: Palette{Background: "#fffdf7", Surface: "#f4efe3", Text: "#222222", Muted: "#555555", Border: "#c8c0b0",
		Primary: "#7a2ee6", PrimaryText: "#ffffff", Success: "#176b33", Warning: "#8a5a00", Error: "#a3121f"},
		Radius: "10px", Font: "Inter, sans-serif", FontSize: "15px", Density: "compact", ButtonStyle: "outline", Mode: ModeAuto,
		LogoURL: "https://app.example.com/logo.png", Title: "Import your contacts"}
	if err := CheckTheme(full, origins); err != nil {
		t.Fatalf("a valid theme: %v", err)
	}
	if d := full.DarkPalette(); Contrast(d.Primary, d.Background) < 4.5 || Contrast(d.PrimaryText, d.Primary) < 4.5 {
		t.Fatalf("the dark palette derived from %s: %+v", full.Primary, d)
	}
	png := "data:image/png;base64," + strings.Repeat("AAAA", 100)
	if err := CheckTheme(Theme{LogoURL: png}, origins); err != nil {
		t.Fatalf("a small data: logo: %v", err)
	}
	for _, c := range []struct {
		name  string
		theme Theme
		field string
		says  string
	}{
		{"a color that is not one", Theme{Palette: Palette{Surface: "red"}}, "theme.surface", ""},
		{"a dark color that is not one", Theme{Dark: Palette{Text: "#12345"}}, "theme.dark.text", ""},
		{"css in a font", Theme{Font: "x;}body{"}, "theme.font", ""},
		{"a font size too small", Theme{FontSize: "9px"}, "theme.font_size", ""},
		{"a font size in em", Theme{FontSize: "1em"}, "theme.font_size", ""},
		{"a density", Theme{Density: "cozy"}, "theme.density", ""},
		{"a button style", Theme{ButtonStyle: "ghost"}, "theme.button_style", ""},
		{"a mode", Theme{Mode: "sepia"}, "theme.mode", ""},
		{"a title with a newline", Theme{Title: "a\nb"}, "theme.title", ""},
		{"a title too long", Theme{Title: strings.Repeat("x", 81)}, "theme.title", ""},
		{"a logo on another origin", Theme{LogoURL: "https://evil.example.net/logo.png"}, "theme.logo_url", ""},
		{"a logo over http", Theme{LogoURL: "http://app.example.com/logo.png"}, "theme.logo_url", ""},
		{"a logo as javascript", Theme{LogoURL: "javascript:alert(1)"}, "theme.logo_url", ""},
		{"a logo as html data", Theme{LogoURL: "data:text/html;base64,PGI+"}, "theme.logo_url", ""},
		{"a logo over 64 KB", Theme{LogoURL: "data:image/png;base64," + strings.Repeat("AAAA", 22000)}, "theme.logo_url", "64 KB"},
		{"grey text on white", Theme{Palette: Palette{Text: "#999999"}}, "theme.text", "on theme.background (#ffffff)"},
		{"white text on a yellow button", Theme{Palette: Palette{Primary: "#ffcc00"}}, "theme.primary_text", "on theme.primary (#ffcc00)"},
		{"dark page, default text", Theme{Palette: Palette{Background: "#101010"}}, "theme.text", "on theme.background (#101010)"},
		{"an outline button too pale", Theme{Palette: Palette{Primary: "#8fb3ff", PrimaryText: "#000000"}, ButtonStyle: "outline"}, "theme.primary", "on theme.background"},
		{"a dark palette's own text", Theme{Mode: ModeDark, Dark: Palette{Text: "#333333"}}, "theme.dark.text", "on theme.dark.background"},
	} {
		err := CheckTheme(c.theme, origins)
		var de *domain.Error
		if !errors.As(err, &de) || !errors.Is(err, domain.ErrInvalid) || len(de.Fields) != 1 || de.Fields[0].Field != c.field ||
			!strings.Contains(de.Message, c.says) {
			t.Errorf("%s: %v (%+v), want a problem with %s saying %q", c.name, err, de, c.field, c.says)
		}
	}
	// A light theme that fails is not checked in dark mode, where it is not shown.
	if err := CheckTheme(Theme{Palette: Palette{Text: "#999999"}, Mode: ModeDark}, origins); err != nil {
		t.Errorf("dark mode checked the light palette: %v", err)
	}
}

func TestLocales(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "en", "fr": "fr", "auto": "auto", "pt": "pt"} {
		if got, err := ParseLocale(in); err != nil || got != want {
			t.Errorf("ParseLocale(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"ja", "pt-BR", "EN", "xx"} {
		if _, err := ParseLocale(bad); err == nil {
			t.Errorf("ParseLocale(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{"fr-CH, fr;q=0.9, en;q=0.8": "fr", "ja, pt-BR;q=0.5, de;q=0.4": "pt", "ja": "en", "": "en",
		"en;q=0.2, nl;q=0.9": "nl", "NL-be": "nl", "es;q=abc, it;q=0.1": "it"} {
		if got := Negotiate(in); got != want {
			t.Errorf("Negotiate(%q) = %q, want %q", in, got, want)
		}
	}
	if got := (Session{Locale: Auto}).Resolve("de-AT,de;q=0.9"); got != "de" {
		t.Errorf("auto resolves to %q", got)
	}
	if got := (Session{Locale: "it"}).Resolve("de"); got != "it" {
		t.Errorf("a fixed locale resolves to %q", got)
	}
}

func TestCheckTexts(t *testing.T) {
	t.Parallel()
	known := func(k string) bool { return k == "title" || k == "submit.button" }
	if err := CheckTexts(map[string]string{"title": "Kontakte importieren", "submit.button": "Send {n}"}, known); err != nil {
		t.Fatal(err)
	}
	for name, texts := range map[string]map[string]string{
		"an unknown key": {"titel": "x"}, "an empty value": {"title": " "}, "a control character": {"title": "a\x00b"},
		"too long": {"title": strings.Repeat("x", 501)},
	} {
		var de *domain.Error
		if err := CheckTexts(texts, known); !errors.As(err, &de) || !strings.HasPrefix(de.Fields[0].Field, "texts.") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
