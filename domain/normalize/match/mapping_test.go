package match

import "testing"

func TestJaroWinkler(t *testing.T) {
	t.Parallel()
	if s := jaroWinkler("emial", "email"); s < fuzzyThreshold {
		t.Errorf("emial/email %.3f", s)
	}
	if s := jaroWinkler("phone", "email"); s >= fuzzyThreshold {
		t.Errorf("phone/email %.3f", s)
	}
	if s := jaroWinkler("abc", "abc"); s != 1 {
		t.Errorf("identical %.3f", s)
	}
}
