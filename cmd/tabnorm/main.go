// Command tabnorm is the server, the operator's admin tool and the offline
// normalizer, in one binary.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"go.uber.org/dig"

	"github.com/tabnorm/tabnorm/domain"
)

func main() {
	err := newRoot(os.Stdout, os.Stderr).Execute()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "tabnorm: "+message(err))
	os.Exit(exitCode(err))
}

// message is the one line printed for a failed command: a coded error's
// client-facing message, else the root cause without fx's wrapping, made
// safe for a terminal (a server's problem detail is in it).
func message(err error) string {
	var coded *domain.Error
	if errors.As(err, &coded) {
		return safeText(coded.Message)
	}
	return safeText(dig.RootCause(err).Error())
}

// exitError carries the process exit code of a failed command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usage marks an error as the caller's mistake (exit code 2).
func usage(err error) error { return &exitError{code: 2, err: err} }

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	if errors.Is(err, domain.ErrInvalid) || isCobraUsage(err) {
		return 2
	}
	return 1
}

// isCobraUsage recognises the argument errors cobra makes itself (missing
// required flags, unknown commands, wrong argument counts).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"required flag", "unknown command", "unknown flag", "unknown shorthand", "accepts ", "invalid argument", "flag needs"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// fieldErrors lists a coded error's field problems as "field: message".
func fieldErrors(err error) []string {
	var coded *domain.Error
	if !errors.As(err, &coded) {
		return nil
	}
	out := make([]string, len(coded.Fields))
	for i, f := range coded.Fields {
		out[i] = f.Field + ": " + f.Message
	}
	return out
}
