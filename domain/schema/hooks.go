package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// HookUse is a schema's declaration that its rows go through one of the
// organization's validation hooks, by the hook's name.
type HookUse struct {
	Hook string
	// Fields are the fields sent to the hook, and the only ones it may
	// correct (none listed: every field is sent and none corrected).
	Fields []string
	// BatchSize is the most rows one request carries.
	BatchSize int
	// OnError is fail_job, flag_rows or skip.
	OnError string
}

// The bounds of a hook declaration (domain/hook holds the same numbers
// for the protocol).
const (
	MaxHooks             = 5
	MaxHookBatchSize     = 1000
	DefaultHookBatchSize = 500
	DefaultHookOnError   = "fail_job"
)

var hookNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,62}$`)

type hookUseDoc struct {
	Hook      string   `json:"hook"`
	Fields    []string `json:"fields,omitempty"`
	BatchSize int      `json:"batch_size"`
	OnError   string   `json:"on_error"`
}

// HookNames are the names of the hooks the schema declares.
func (s *Schema) HookNames() []string {
	out := make([]string, 0, len(s.Hooks))
	for _, h := range s.Hooks {
		out = append(out, h.Hook)
	}
	return out
}

func (p *parser) hooks(v any, s *Schema) []HookUse {
	arr, ok := v.([]any)
	if !ok {
		p.add("hooks", "must be an array of hook objects")
		return nil
	}
	if len(arr) > MaxHooks {
		p.add("hooks", "has %d hooks; the limit is %d", len(arr), MaxHooks)
		return nil
	}
	out := make([]HookUse, 0, len(arr))
	seen := map[string]int{}
	for i, raw := range arr {
		path := fmt.Sprintf("hooks[%d]", i)
		h, ok := p.hookUse(raw, path, s)
		if !ok {
			continue
		}
		if j, dup := seen[h.Hook]; dup {
			p.add(path+".hook", "names the hook of hooks[%d] again", j)
		}
		seen[h.Hook] = i
		out = append(out, h)
	}
	return out
}

func (p *parser) hookUse(raw any, path string, s *Schema) (HookUse, bool) {
	m := p.object(raw, path, "hook", "fields", "batch_size", "on_error")
	if m == nil {
		return HookUse{}, false
	}
	n := len(p.errs)
	h := HookUse{BatchSize: DefaultHookBatchSize, OnError: DefaultHookOnError}
	if name, ok := p.str(m["hook"], path+".hook"); ok {
		if !hookNameRE.MatchString(name) {
			p.add(path+".hook", "must name a hook: a lower-case letter then lower-case letters, digits, _ or -")
		}
		h.Hook = name
	}
	if v, ok := m["fields"]; ok {
		h.Fields = p.strings(v, path+".fields")
		for i, f := range h.Fields {
			if s.Index(f) < 0 && len(s.Fields) > 0 {
				p.add(fmt.Sprintf("%s.fields[%d]", path, i), "names no field: %q", f)
			}
		}
	}
	if v, ok := m["batch_size"]; ok {
		size, err := strconv.Atoi(fmt.Sprint(v))
		if err != nil || size < 1 || size > MaxHookBatchSize {
			p.add(path+".batch_size", "must be a whole number from 1 to %d", MaxHookBatchSize)
		}
		h.BatchSize = size
	}
	if v, ok := m["on_error"]; ok {
		mode, _ := p.str(v, path+".on_error")
		if !slices.Contains([]string{"fail_job", "flag_rows", "skip"}, mode) {
			p.add(path+".on_error", "must be fail_job, flag_rows or skip")
		}
		h.OnError = mode
	}
	return h, len(p.errs) == n
}

func hooksDoc(hs []HookUse) []hookUseDoc {
	if len(hs) == 0 {
		return nil
	}
	out := make([]hookUseDoc, len(hs))
	for i, h := range hs {
		out[i] = hookUseDoc(h)
	}
	return out
}
