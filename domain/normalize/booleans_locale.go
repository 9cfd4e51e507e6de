package normalize

import (
	"encoding/json"
	"strings"

	"github.com/tabnorm/tabnorm/domain/schema"
)

// localeBooleans are the yes and no words of the languages a job's
// boolean_locale may name, read besides the English ones (which every
// job reads). An import session sets the option to its end user's
// language, and a rerun inherits it with the job's options, so a rerun
// reads "ja" as the first run did.
var localeBooleans = map[string][2][]string{
	"en": {nil, nil},
	"de": {{"ja", "wahr", "j"}, {"nein", "falsch"}},
	"fr": {{"oui", "vrai", "o"}, {"non", "faux"}},
	"es": {{"sí", "si", "verdadero", "s"}, {"no", "falso"}},
	"it": {{"sì", "si", "vero", "s"}, {"no", "falso"}},
	"pt": {{"sim", "verdadeiro", "s"}, {"não", "nao", "falso"}},
	"nl": {{"ja", "waar", "j"}, {"nee", "onwaar"}},
}

// booleanLocaleRule reads options.boolean_locale: "" (English words only)
// or one of localeBooleans' languages.
var booleanLocaleRule = optionRule{
	parse: func(o *Options, _ Mode, v json.RawMessage, _ func(string, string)) error {
		return json.Unmarshal(v, &o.BooleanLocale)
	},
	valid: func(o *Options, _ Mode) bool {
		_, ok := localeBooleans[o.BooleanLocale]
		return o.BooleanLocale == "" || ok
	},
	want: "must be one of en, de, fr, es, it, pt, nl",
}

// withLocaleBooleans returns a boolean field that also reads the yes and
// no words of locale, in lower, title and upper case ("ja", "Ja", "JA"),
// after its own true_values and false_values; other fields unchanged.
func withLocaleBooleans(f schema.Field, locale string) schema.Field {
	words, ok := localeBooleans[locale]
	if f.Type != schema.Boolean || !ok || words[0] == nil {
		return f
	}
	cases := func(own, add []string) []string {
		out := append([]string(nil), own...)
		for _, w := range add {
			out = append(out, w, strings.ToUpper(w[:1])+w[1:], strings.ToUpper(w))
		}
		return out
	}
	f.TrueValues = cases(f.TrueValues, words[0])
	f.FalseValues = cases(f.FalseValues, words[1])
	return f
}
