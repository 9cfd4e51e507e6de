package importsession

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Locales the importer speaks; the first is the default.
var Locales = []string{"en", "de", "fr", "es", "it", "pt", "nl"}

// Auto is the locale of a session that speaks the end user's browser's
// language, when it is one of Locales, and the default otherwise.
const Auto = "auto"

// ParseLocale returns the importer's language: "" is the default.
func ParseLocale(s string) (string, error) {
	if s == "" {
		return Locales[0], nil
	}
	if s != Auto && !slices.Contains(Locales, s) {
		return "", invalidField("locale", "must be auto or one of "+strings.Join(Locales, ", "))
	}
	return s, nil
}

// Negotiate picks the first of Locales an Accept-Language header asks
// for, by weight then by order ("fr-CH, de;q=0.8" is fr), or the default.
// The browser sends the same list in the page's request and in the
// importer's API calls, so the page and the jobs it creates agree.
func Negotiate(acceptLanguage string) string {
	best, bestQ := Locales[0], 0.0
	for part := range strings.SplitSeq(acceptLanguage, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		lang, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
		if q > bestQ && slices.Contains(Locales, lang) {
			best, bestQ = lang, q
		}
	}
	return best
}

// Resolve is the language a session speaks to a browser asking for
// acceptLanguage: its own, or the browser's when it is Auto.
func (s Session) Resolve(acceptLanguage string) string {
	if s.Locale == Auto {
		return Negotiate(acceptLanguage)
	}
	if s.Locale == "" {
		return Locales[0]
	}
	return s.Locale
}

// Limits of a session's texts.
const (
	MaxTexts      = 300
	MaxTextLength = 500
)

// CheckTexts refuses texts whose keys the importer does not have (known
// says which it has) or whose values are empty, over 500 characters, or
// hold control characters: each replaces one sentence of the importer,
// shown as text, never as markup.
func CheckTexts(texts map[string]string, known func(key string) bool) error {
	if len(texts) > MaxTexts {
		return invalidField("texts", "must hold at most "+strconv.Itoa(MaxTexts)+" keys")
	}
	keys := make([]string, 0, len(texts))
	for k := range texts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := texts[k]
		if !known(k) {
			return invalidField("texts."+truncate(k, 100), "is not a message of the importer (see its locales/en.json)")
		}
		if strings.TrimSpace(v) == "" || utf8.RuneCountInString(v) > MaxTextLength || !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			return invalidField("texts."+k, "must be 1 to 500 characters of text without control characters")
		}
	}
	return nil
}
