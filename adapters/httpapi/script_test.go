package httpapi_test

import "testing"

// scriptStep is one named step of a script test.
type scriptStep[T any] struct {
	name string
	run  func(t *testing.T, x T)
}

// script runs the steps in order on shared state x, each as a subtest; a
// failed step ends the script, as the later ones build on it.
func script[T any](t *testing.T, x T, steps ...scriptStep[T]) {
	t.Helper()
	for _, s := range steps {
		if !t.Run(s.name, func(t *testing.T) { s.run(t, x) }) {
			return
		}
	}
}
