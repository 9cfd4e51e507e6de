package httpapi

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// openAPIValidator loads the embedded document with a real OpenAPI
// library, failing the test if it is not a valid OpenAPI 3.1 document.
func openAPIValidator(t *testing.T) validator.Validator {
	t.Helper()
	doc, err := libopenapi.NewDocument(OpenAPI)
	if err != nil {
		t.Fatalf("openapi.json does not load: %v", err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.1") {
		t.Fatalf("openapi version %q, want 3.1", v)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("openapi.json does not build a validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("openapi.json: %s: %s", e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("  at %s: %s", se.Location, se.Reason)
			}
		}
		t.FailNow()
	}
	return v
}

func TestOpenAPI_isValid31(t *testing.T) {
	t.Parallel()
	openAPIValidator(t)
}

var ginParam = regexp.MustCompile(`[:*]([A-Za-z_]+)`)

// TestOpenAPI_listsExactlyTheRoutes keeps the document true: every route
// the router serves is documented, and every documented route is served.
func TestOpenAPI_listsExactlyTheRoutes(t *testing.T) {
	t.Parallel()
	doc, err := libopenapi.NewDocument(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	model, errs := doc.BuildV3Model()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	documented := map[string]bool{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	served := map[string]bool{}
	for _, r := range newTestAPI(t, nil).engine.Routes() {
		if strings.HasPrefix(r.Path, "/assets") || strings.HasPrefix(r.Path, "/embed/") || r.Method == http.MethodHead {
			continue
		}
		served[r.Method+" "+ginParam.ReplaceAllString(r.Path, "{$1}")] = true
	}
	var missing, extra []string
	for r := range served {
		if !documented[r] {
			missing = append(missing, r)
		}
	}
	for r := range documented {
		if !served[r] {
			extra = append(extra, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("served but not in openapi.json: %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("in openapi.json but not served: %v", extra)
	}
}

// TestOpenAPI_describesResponses checks real responses against the
// document's schemas.
func TestOpenAPI_describesResponses(t *testing.T) {
	t.Parallel()
	v := openAPIValidator(t)
	h := newTestAPI(t, nil).Handler()
	for _, path := range []string{"/healthz", "/readyz", "/v1/openapi.json"} {
		req := httptest.NewRequest("GET", path, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if ok, errs := v.ValidateHttpResponse(req, rec.Result()); !ok {
			for _, e := range errs {
				t.Errorf("GET %s: %s: %s", path, e.Message, e.Reason)
			}
		}
	}
}
