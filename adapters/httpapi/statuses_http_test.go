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

// TestMain runs the package's tests, then, when all of them ran, checks
// that every status the OpenAPI document declares for an operation was
// answered to some test's request on that operation (apptest records
// each answer). A declared status nothing produces is either untested or
// untrue.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" && !testing.Short() {
		if missing := unproducedStatuses(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: statuses declared in openapi.json that no test produced (add a test, or take them out of the document or of knownUnproduced):\n  %s\n", strings.Join(missing, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

// knownUnproduced are declared statuses no test of this package produces
// yet: each is answered by shared middleware (tested on other routes) or
// needs a setting tests do not use. The list may only shrink: a listed
// status that a test produces is a failure too, so it is taken out.
var knownUnproduced = map[string]bool{
	"DELETE /auth/impersonate 400":                              true,
	"DELETE /auth/impersonate 401":                              true,
	"DELETE /auth/impersonate 403":                              true,
	"DELETE /auth/impersonate 429":                              true,
	"DELETE /v1/admin/keys/{id} 400":                            true,
	"DELETE /v1/admin/keys/{id} 401":                            true,
	"DELETE /v1/admin/keys/{id} 429":                            true,
	"DELETE /v1/connect/files/{id} 401":                         true,
	"DELETE /v1/connect/files/{id} 429":                         true,
	"DELETE /v1/connect/jobs/{id} 204":                          true,
	"DELETE /v1/connect/jobs/{id} 401":                          true,
	"DELETE /v1/connect/jobs/{id} 403":                          true,
	"DELETE /v1/connect/jobs/{id} 404":                          true,
	"DELETE /v1/connect/jobs/{id} 429":                          true,
	"DELETE /v1/jobs/{id} 401":                                  true,
	"DELETE /v1/jobs/{id} 403":                                  true,
	"DELETE /v1/jobs/{id} 429":                                  true,
	"DELETE /v1/schemas/{id} 401":                               true,
	"DELETE /v1/schemas/{id} 403":                               true,
	"DELETE /v1/schemas/{id} 404":                               true,
	"DELETE /v1/schemas/{id} 429":                               true,
	"DELETE /v1/webhooks/{id} 400":                              true,
	"DELETE /v1/webhooks/{id} 401":                              true,
	"DELETE /v1/webhooks/{id} 404":                              true,
	"DELETE /v1/webhooks/{id} 429":                              true,
	"GET /auth/me 400":                                          true,
	"GET /auth/me 403":                                          true,
	"GET /auth/me 429":                                          true,
	"GET /readyz 503":                                           true,
	"GET /v1/admin/keys 429":                                    true,
	"GET /v1/admin/organizations 400":                           true,
	"GET /v1/admin/organizations 401":                           true,
	"GET /v1/admin/organizations 429":                           true,
	"GET /v1/connect/files 400":                                 true,
	"GET /v1/connect/files 429":                                 true,
	"GET /v1/connect/files/{id} 401":                            true,
	"GET /v1/connect/files/{id} 429":                            true,
	"GET /v1/connect/jobs 400":                                  true,
	"GET /v1/connect/jobs 401":                                  true,
	"GET /v1/connect/jobs 429":                                  true,
	"GET /v1/connect/jobs/{id} 401":                             true,
	"GET /v1/connect/jobs/{id} 404":                             true,
	"GET /v1/connect/jobs/{id} 429":                             true,
	"GET /v1/connect/jobs/{id}/errors 400":                      true,
	"GET /v1/connect/jobs/{id}/errors 401":                      true,
	"GET /v1/connect/jobs/{id}/errors 403":                      true,
	"GET /v1/connect/jobs/{id}/errors 404":                      true,
	"GET /v1/connect/jobs/{id}/errors 409":                      true,
	"GET /v1/connect/jobs/{id}/errors 429":                      true,
	"GET /v1/connect/jobs/{id}/errors.csv 200":                  true,
	"GET /v1/connect/jobs/{id}/errors.csv 400":                  true,
	"GET /v1/connect/jobs/{id}/errors.csv 401":                  true,
	"GET /v1/connect/jobs/{id}/errors.csv 403":                  true,
	"GET /v1/connect/jobs/{id}/errors.csv 404":                  true,
	"GET /v1/connect/jobs/{id}/errors.csv 409":                  true,
	"GET /v1/connect/jobs/{id}/errors.csv 429":                  true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 200":                true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 400":                true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 401":                true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 403":                true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 404":                true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 409":                true,
	"GET /v1/connect/jobs/{id}/errors.jsonl 429":                true,
	"GET /v1/connect/jobs/{id}/events 200":                      true,
	"GET /v1/connect/jobs/{id}/events 400":                      true,
	"GET /v1/connect/jobs/{id}/events 401":                      true,
	"GET /v1/connect/jobs/{id}/events 404":                      true,
	"GET /v1/connect/jobs/{id}/events 429":                      true,
	"GET /v1/connect/jobs/{id}/invalid-values 401":              true,
	"GET /v1/connect/jobs/{id}/invalid-values 429":              true,
	"GET /v1/connect/jobs/{id}/review 401":                      true,
	"GET /v1/connect/jobs/{id}/review 429":                      true,
	"GET /v1/connect/jobs/{id}/rows 400":                        true,
	"GET /v1/connect/jobs/{id}/rows 401":                        true,
	"GET /v1/connect/jobs/{id}/rows 403":                        true,
	"GET /v1/connect/jobs/{id}/rows 404":                        true,
	"GET /v1/connect/jobs/{id}/rows 409":                        true,
	"GET /v1/connect/jobs/{id}/rows 429":                        true,
	"GET /v1/connect/jobs/{id}/rows.csv 200":                    true,
	"GET /v1/connect/jobs/{id}/rows.csv 400":                    true,
	"GET /v1/connect/jobs/{id}/rows.csv 401":                    true,
	"GET /v1/connect/jobs/{id}/rows.csv 403":                    true,
	"GET /v1/connect/jobs/{id}/rows.csv 404":                    true,
	"GET /v1/connect/jobs/{id}/rows.csv 409":                    true,
	"GET /v1/connect/jobs/{id}/rows.csv 429":                    true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 200":                  true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 400":                  true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 401":                  true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 403":                  true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 404":                  true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 409":                  true,
	"GET /v1/connect/jobs/{id}/rows.jsonl 429":                  true,
	"GET /v1/jobs/{id} 401":                                     true,
	"GET /v1/jobs/{id} 429":                                     true,
	"GET /v1/jobs/{id}/errors 400":                              true,
	"GET /v1/jobs/{id}/errors 401":                              true,
	"GET /v1/jobs/{id}/errors 403":                              true,
	"GET /v1/jobs/{id}/errors 404":                              true,
	"GET /v1/jobs/{id}/errors 409":                              true,
	"GET /v1/jobs/{id}/errors 429":                              true,
	"GET /v1/jobs/{id}/errors.csv 400":                          true,
	"GET /v1/jobs/{id}/errors.csv 401":                          true,
	"GET /v1/jobs/{id}/errors.csv 403":                          true,
	"GET /v1/jobs/{id}/errors.csv 404":                          true,
	"GET /v1/jobs/{id}/errors.csv 409":                          true,
	"GET /v1/jobs/{id}/errors.csv 429":                          true,
	"GET /v1/jobs/{id}/errors.jsonl 400":                        true,
	"GET /v1/jobs/{id}/errors.jsonl 401":                        true,
	"GET /v1/jobs/{id}/errors.jsonl 403":                        true,
	"GET /v1/jobs/{id}/errors.jsonl 404":                        true,
	"GET /v1/jobs/{id}/errors.jsonl 409":                        true,
	"GET /v1/jobs/{id}/errors.jsonl 429":                        true,
	"GET /v1/jobs/{id}/events 401":                              true,
	"GET /v1/jobs/{id}/events 429":                              true,
	"GET /v1/jobs/{id}/invalid-values 401":                      true,
	"GET /v1/jobs/{id}/invalid-values 429":                      true,
	"GET /v1/jobs/{id}/review 401":                              true,
	"GET /v1/jobs/{id}/review 429":                              true,
	"GET /v1/jobs/{id}/rows 401":                                true,
	"GET /v1/jobs/{id}/rows 403":                                true,
	"GET /v1/jobs/{id}/rows 429":                                true,
	"GET /v1/jobs/{id}/rows.csv 400":                            true,
	"GET /v1/jobs/{id}/rows.csv 401":                            true,
	"GET /v1/jobs/{id}/rows.csv 403":                            true,
	"GET /v1/jobs/{id}/rows.csv 404":                            true,
	"GET /v1/jobs/{id}/rows.csv 409":                            true,
	"GET /v1/jobs/{id}/rows.csv 429":                            true,
	"GET /v1/jobs/{id}/rows.jsonl 400":                          true,
	"GET /v1/jobs/{id}/rows.jsonl 401":                          true,
	"GET /v1/jobs/{id}/rows.jsonl 403":                          true,
	"GET /v1/jobs/{id}/rows.jsonl 404":                          true,
	"GET /v1/jobs/{id}/rows.jsonl 409":                          true,
	"GET /v1/jobs/{id}/rows.jsonl 429":                          true,
	"GET /v1/openapi.json 200":                                  true,
	"GET /v1/openapi.json 403":                                  true,
	"GET /v1/openapi.json 429":                                  true,
	"GET /v1/schemas 400":                                       true,
	"GET /v1/schemas 401":                                       true,
	"GET /v1/schemas 429":                                       true,
	"GET /v1/schemas/{id} 200":                                  true,
	"GET /v1/schemas/{id} 401":                                  true,
	"GET /v1/schemas/{id} 403":                                  true,
	"GET /v1/schemas/{id} 429":                                  true,
	"GET /v1/webhooks 400":                                      true,
	"GET /v1/webhooks 401":                                      true,
	"GET /v1/webhooks 403":                                      true,
	"GET /v1/webhooks 429":                                      true,
	"GET /v1/webhooks/{id} 200":                                 true,
	"GET /v1/webhooks/{id} 400":                                 true,
	"GET /v1/webhooks/{id} 401":                                 true,
	"GET /v1/webhooks/{id} 403":                                 true,
	"GET /v1/webhooks/{id} 429":                                 true,
	"GET /v1/webhooks/{id}/deliveries 400":                      true,
	"GET /v1/webhooks/{id}/deliveries 401":                      true,
	"GET /v1/webhooks/{id}/deliveries 403":                      true,
	"GET /v1/webhooks/{id}/deliveries 429":                      true,
	"PATCH /v1/connect/jobs/{id}/mapping 401":                   true,
	"PATCH /v1/connect/jobs/{id}/mapping 429":                   true,
	"PATCH /v1/jobs/{id}/mapping 401":                           true,
	"PATCH /v1/jobs/{id}/mapping 429":                           true,
	"PATCH /v1/webhooks/{id} 400":                               true,
	"PATCH /v1/webhooks/{id} 401":                               true,
	"PATCH /v1/webhooks/{id} 404":                               true,
	"PATCH /v1/webhooks/{id} 429":                               true,
	"POST /auth/impersonate 400":                                true,
	"POST /auth/impersonate 401":                                true,
	"POST /auth/impersonate 415":                                true,
	"POST /auth/impersonate 429":                                true,
	"POST /auth/login 400":                                      true,
	"POST /auth/logout 400":                                     true,
	"POST /auth/logout 401":                                     true,
	"POST /auth/logout 429":                                     true,
	"POST /v1/admin/keys 401":                                   true,
	"POST /v1/admin/keys 415":                                   true,
	"POST /v1/admin/keys 429":                                   true,
	"POST /v1/connect/files 401":                                true,
	"POST /v1/connect/files 429":                                true,
	"POST /v1/connect/jobs 401":                                 true,
	"POST /v1/connect/jobs 429":                                 true,
	"POST /v1/connect/jobs/{id}/cancel 401":                     true,
	"POST /v1/connect/jobs/{id}/cancel 404":                     true,
	"POST /v1/connect/jobs/{id}/cancel 409":                     true,
	"POST /v1/connect/jobs/{id}/cancel 429":                     true,
	"POST /v1/connect/jobs/{id}/confirm 401":                    true,
	"POST /v1/connect/jobs/{id}/confirm 429":                    true,
	"POST /v1/connect/jobs/{id}/rerun 401":                      true,
	"POST /v1/connect/jobs/{id}/rerun 429":                      true,
	"POST /v1/jobs 401":                                         true,
	"POST /v1/jobs/{id}/cancel 401":                             true,
	"POST /v1/jobs/{id}/cancel 403":                             true,
	"POST /v1/jobs/{id}/cancel 404":                             true,
	"POST /v1/jobs/{id}/cancel 429":                             true,
	"POST /v1/jobs/{id}/confirm 401":                            true,
	"POST /v1/jobs/{id}/confirm 429":                            true,
	"POST /v1/jobs/{id}/rerun 401":                              true,
	"POST /v1/jobs/{id}/rerun 429":                              true,
	"POST /v1/schemas 401":                                      true,
	"POST /v1/schemas 403":                                      true,
	"POST /v1/schemas 415":                                      true,
	"POST /v1/schemas 429":                                      true,
	"POST /v1/webhooks 401":                                     true,
	"POST /v1/webhooks 409":                                     true,
	"POST /v1/webhooks 429":                                     true,
	"POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry 400": true,
	"POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry 401": true,
	"POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry 404": true,
	"POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry 409": true,
	"POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry 429": true,
	"POST /v1/webhooks/{id}/rotate-secret 400":                  true,
	"POST /v1/webhooks/{id}/rotate-secret 401":                  true,
	"POST /v1/webhooks/{id}/rotate-secret 403":                  true,
	"POST /v1/webhooks/{id}/rotate-secret 404":                  true,
	"POST /v1/webhooks/{id}/rotate-secret 429":                  true,
	"POST /v1/webhooks/{id}/test 400":                           true,
	"POST /v1/webhooks/{id}/test 401":                           true,
	"POST /v1/webhooks/{id}/test 404":                           true,
	"POST /v1/webhooks/{id}/test 429":                           true,
}

// unproducedStatuses lists "METHOD /path status" for every declared,
// unproduced status.
func unproducedStatuses() []string {
	doc, err := libopenapi.NewDocument(httpapi.OpenAPI)
	if err != nil {
		return []string{err.Error()}
	}
	model, errs := doc.BuildV3Model()
	if len(errs) > 0 {
		return []string{fmt.Sprint(errs)}
	}
	type route struct {
		method, path string
		re           *regexp.Regexp
	}
	var routes []route
	declared := map[string]bool{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[a-z_]+\\\}`).ReplaceAllString(regexp.QuoteMeta(path), `[^/]+`) + "$")
		for method, op := range item.GetOperations().FromOldest() {
			m := strings.ToUpper(method)
			routes = append(routes, route{m, path, re})
			for status := range op.Responses.Codes.KeysFromOldest() {
				if _, err := strconv.Atoi(status); err == nil {
					declared[m+" "+path+" "+status] = true
				}
			}
		}
	}
	produced := map[string]bool{}
	for _, a := range apptest.Answers() {
		// The most specific template wins: /rows.csv before /{id}.
		best := ""
		for _, r := range routes {
			if r.method == a.Method && r.re.MatchString(a.Path) && (best == "" || strings.Count(r.path, "{") < strings.Count(best, "{")) {
				best = r.path
			}
		}
		if best != "" {
			produced[a.Method+" "+best+" "+strconv.Itoa(a.Status)] = true
		}
	}
	var missing []string
	for d := range declared {
		switch {
		case !produced[d] && !knownUnproduced[d]:
			missing = append(missing, d)
		case produced[d] && knownUnproduced[d]:
			missing = append(missing, d+" (produced now: take it out of knownUnproduced)")
		}
	}
	sort.Strings(missing)
	return missing
}
