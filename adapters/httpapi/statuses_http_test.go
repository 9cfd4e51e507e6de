package httpapi_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"

	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// TestMain runs the package's tests, then, when all of them ran, holds the
// OpenAPI document to what the tests saw (apptest records each answer):
// every status the document declares for an operation was answered to
// some test's request on that operation, and every status a test was
// answered is declared by its operation (a 5xx by its "default"). A
// declared status nothing produces is either untested or untrue; an
// answered status the document lacks is a promise generated clients
// cannot decode.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" && !testing.Short() {
		unproduced, undeclared := statusMismatches()
		if len(unproduced) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: statuses declared in openapi.json that no test produced (add a test, or take them out of the document):\n  %s\n", strings.Join(unproduced, "\n  "))
			code = 1
		}
		if len(undeclared) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: statuses tests were answered that openapi.json does not declare (declare them):\n  %s\n", strings.Join(undeclared, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// documentedOperation is one operation of the OpenAPI document.
type documentedOperation struct {
	method, path string // path is the template, e.g. /v1/jobs/{id}
	re           *regexp.Regexp
	statuses     map[int]bool
	hasDefault   bool
	hasBody      bool // the operation takes a request body
}

// documentedOperations reads every operation of the embedded document.
func documentedOperations() ([]documentedOperation, error) {
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		return nil, err
	}
	model, errs := doc.BuildV3Model()
	if len(errs) > 0 {
		return nil, fmt.Errorf("%v", errs)
	}
	param := regexp.MustCompile(`\\\{[a-z_]+\\\}`)
	var ops []documentedOperation
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		re := regexp.MustCompile("^" + param.ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		for method, op := range item.GetOperations().FromOldest() {
			o := documentedOperation{method: strings.ToUpper(method), path: path, re: re, statuses: map[int]bool{}, hasDefault: op.Responses.Default != nil, hasBody: op.RequestBody != nil}
			for status := range op.Responses.Codes.KeysFromOldest() {
				if n, err := strconv.Atoi(status); err == nil {
					o.statuses[n] = true
				}
			}
			ops = append(ops, o)
		}
	}
	return ops, nil
}

// statusMismatches lists "METHOD /path status" for every declared status
// no test produced, and for every produced status no operation declares.
func statusMismatches() (unproduced, undeclared []string) {
	ops, err := documentedOperations()
	if err != nil {
		return []string{err.Error()}, nil
	}
	produced := map[string]bool{}
	example := map[string]string{} // an undeclared answer, and a path it was answered on
	for _, a := range apptest.Answers() {
		// The most specific template wins: /rows.csv before /{id}.
		var best *documentedOperation
		for i, o := range ops {
			if o.method == a.Method && o.re.MatchString(a.Path) && (best == nil || strings.Count(o.path, "{") < strings.Count(best.path, "{")) {
				best = &ops[i]
			}
		}
		if best == nil { // an unknown route or method: 404 and 405 belong to no operation
			continue
		}
		name := a.Method + " " + best.path + " " + strconv.Itoa(a.Status)
		produced[name] = true
		if !best.statuses[a.Status] && !(a.Status >= 500 && best.hasDefault) {
			example[name] = a.Path
		}
	}
	for _, o := range ops {
		for status := range o.statuses {
			if name := o.method + " " + o.path + " " + strconv.Itoa(status); !produced[name] {
				unproduced = append(unproduced, name)
			}
		}
	}
	for name, path := range example {
		undeclared = append(undeclared, name+" (on "+path+")")
	}
	sort.Strings(unproduced)
	sort.Strings(undeclared)
	return unproduced, undeclared
}
