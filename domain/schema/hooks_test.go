package schema

import (
	"errors"
	"slices"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

func TestParse_hooks(t *testing.T) {
	s, err := Parse([]byte(`{"fields":[{"name":"id"},{"name":"email"}],"hooks":[{"hook":"crm","fields":["email"]},{"hook":"erp","batch_size":50,"on_error":"skip"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []HookUse{{Hook: "crm", Fields: []string{"email"}, BatchSize: DefaultHookBatchSize, OnError: "fail_job"}, {Hook: "erp", BatchSize: 50, OnError: "skip"}}
	if len(s.Hooks) != 2 || !slices.EqualFunc(s.Hooks, want, func(a, b HookUse) bool {
		return a.Hook == b.Hook && slices.Equal(a.Fields, b.Fields) && a.BatchSize == b.BatchSize && a.OnError == b.OnError
	}) || !slices.Equal(s.HookNames(), []string{"crm", "erp"}) {
		t.Fatalf("hooks %+v", s.Hooks)
	}
	again, err := Parse(s.JSON())
	if err != nil || string(again.JSON()) != string(s.JSON()) {
		t.Fatalf("the canonical document does not read back: %v\n%s", err, s.JSON())
	}
}

func TestParse_hooksProblems(t *testing.T) {
	_, err := Parse([]byte(`{"fields":[{"name":"id"}],"hooks":[{"hook":"Bad Name"},{"hook":"crm","fields":["zip"],"batch_size":5000,"on_error":"explode","extra":1},{"hook":"ok"},{"hook":"ok"}]}`))
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalidSchema {
		t.Fatalf("err = %v", err)
	}
	var paths []string
	for _, f := range de.Fields {
		paths = append(paths, f.Field)
	}
	for _, p := range []string{"hooks[0].hook", "hooks[1].extra", "hooks[1].fields[0]", "hooks[1].batch_size", "hooks[1].on_error", "hooks[3].hook"} {
		if !slices.Contains(paths, p) {
			t.Errorf("no problem at %s: %v", p, paths)
		}
	}
}
