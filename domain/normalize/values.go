package normalize

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// Mapping is options.mapping: source header → field name, where "" (null
// in JSON) ignores the column, so that no automatic method maps it.
type Mapping map[string]string

// MarshalJSON writes an ignored column as null.
func (m Mapping) MarshalJSON() ([]byte, error) {
	out := make(map[string]*string, len(m))
	for h, f := range m {
		if f == "" {
			out[h] = nil
			continue
		}
		out[h] = &f
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads null as "" (ignore the column).
func (m *Mapping) UnmarshalJSON(b []byte) error {
	var in map[string]*string
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	if in == nil {
		*m = nil
		return nil
	}
	*m = make(Mapping, len(in))
	for h, f := range in {
		if f == nil {
			(*m)[h] = ""
			continue
		}
		(*m)[h] = *f
	}
	return nil
}

// MaxValueMapEntries bounds options.value_map: replacements over every
// field together.
const MaxValueMapEntries = 10_000

// parseValueMap reads options.value_map: {"field": {"raw": "replacement"}}.
func parseValueMap(v json.RawMessage, o *Options, m Mode, add func(k, msg string)) error {
	var vm map[string]map[string]string
	if err := json.Unmarshal(v, &vm); err != nil {
		return err
	}
	if vm == nil {
		vm = map[string]map[string]string{}
	}
	o.ValueMap = vm
	if m == ModeInfer && len(vm) > 0 {
		add("value_map", "applies to the fields of a target schema: use mode normalize or validate")
	}
	n := 0
	for _, values := range vm {
		n += len(values)
	}
	if n > MaxValueMapEntries {
		add("value_map", fmt.Sprintf("has %d replacements; at most %d", n, MaxValueMapEntries))
	}
	return nil
}

// checkValueMapKeys refuses raw values of one field that the engine would
// compare as the same (after trimming, and ignoring case when asked) but
// replace differently: which one applied would be left to chance.
func checkValueMapKeys(o Options, add func(k, msg string)) {
	fields := make([]string, 0, len(o.ValueMap))
	for f := range o.ValueMap {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		raws := make([]string, 0, len(o.ValueMap[f]))
		for raw := range o.ValueMap[f] {
			raws = append(raws, raw)
		}
		sort.Strings(raws)
		seen := map[string]string{}
		for _, raw := range raws {
			k, repl := raw, o.ValueMap[f][raw]
			if o.Trim {
				k, repl = trimSpace(k), trimSpace(repl)
			}
			if o.ValueMapCaseInsensitive {
				k = strings.ToLower(k)
			}
			if first, ok := seen[k]; ok && trimmedIf(o.Trim, o.ValueMap[f][first]) != repl {
				add("value_map."+f, fmt.Sprintf("%q and %q match the same values but are replaced differently", first, raw))
				continue
			}
			seen[k] = raw
		}
	}
}

func trimmedIf(trim bool, s string) string {
	if trim {
		return trimSpace(s)
	}
	return s
}

// CheckFields checks the options that name the schema's fields against
// it: every field of value_map must be one of the schema's. s may be nil
// (infer without a schema).
func (o Options) CheckFields(s *schema.Schema) error {
	var errs []domain.FieldError
	fields := make([]string, 0, len(o.ValueMap))
	for f := range o.ValueMap {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		if s == nil || s.Index(f) < 0 {
			errs = append(errs, domain.FieldError{Field: "options.value_map." + f, Message: "not a field of the schema"})
		}
	}
	if len(errs) > 0 {
		return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "The options are not valid; see errors.", Fields: errs}
	}
	return nil
}

// valueMap is one field's replacements, compiled: keys as the engine
// compares them (trimmed when trim is on, lower-cased when matching
// ignores case).
type valueMap struct {
	to   map[string]string
	fold bool
}

func compileValueMap(values map[string]string, trim, fold bool) *valueMap {
	if len(values) == 0 {
		return nil
	}
	vm := &valueMap{to: make(map[string]string, len(values)), fold: fold}
	for raw, repl := range values {
		if trim {
			raw, repl = trimSpace(raw), trimSpace(repl)
		}
		if fold {
			raw = strings.ToLower(raw)
		}
		vm.to[raw] = repl
	}
	return vm
}

// apply returns the replacement of s, or s.
func (vm *valueMap) apply(s string) string {
	k := s
	if vm.fold {
		k = strings.ToLower(s)
	}
	if r, ok := vm.to[k]; ok {
		return r
	}
	return s
}
