// Package test holds the tests that look at tabnorm from outside: the
// architecture rules (arch), whole-service end-to-end tests over HTTP (e2e),
// browser tests (browser) and the generated mocks of the ports (mocks).
package test
