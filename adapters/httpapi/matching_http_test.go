package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/test/apptest"
)

// matchingCSV has a French header the schema does not spell (Courriel), a
// generic one over dates (Column 3), and a header that names something
// else over e-mail addresses (Contact).
const matchingCSV = "ID,Courriel,Column 3,Contact\n1,ann@x.io,2024-01-31,a@y.io\n2,bob@x.io,2024-02-01,b@y.io\n3,cy@x.io,2024-03-04,c@y.io\n"

// TestJobs_contentMapping: a job without review maps a synonym and a
// column its values decide, says why in mapping[].evidence and warns of
// the content mapping; the review of the same file ranks the same way
// and offers the e-mail field to the column whose header says otherwise,
// each column with the warnings of its mapping, on both databases.
func TestJobs_contentMapping(t *testing.T) {
	t.Parallel()
	for _, target := range sqltest.Targets(t) {
		t.Run(target.Name, func(t *testing.T) {
			t.Parallel()
			app := apptest.Start(t, target)
			k := newChecked(t, app)
			key := apptest.Caller{Key: app.Key(app.Org("Acme", identity.Normalize))}
			var created jobView
			k.send(upload(t, app, "people.csv", matchingCSV, map[string]string{"schema": peopleSchema}), key, 202, "").JSON(t, &created)
			waitJob(t, app, key, created.ID)
			var j struct {
				Status  string `json:"status"`
				Mapping []struct {
					SourceColumn string          `json:"source_column"`
					Field        *string         `json:"field"`
					Method       *string         `json:"method"`
					Evidence     json.RawMessage `json:"evidence"`
				} `json:"mapping"`
			}
			k.do("GET", "/v1/jobs/"+created.ID, key, nil, 200, "").JSON(t, &j)
			var got []string
			for _, m := range j.Mapping {
				s := m.SourceColumn + "→-"
				if m.Field != nil {
					s = m.SourceColumn + "→" + *m.Field + "/" + *m.Method
				}
				got = append(got, s+" "+string(m.Evidence))
			}
			want := []string{`ID→id/normalized null`, `Courriel→email/synonym {"header":0.95,"values":1,"matched":"email"}`,
				`Column 3→joined/content {"header":0,"values":1,"matched":"date"}`, `Contact→- null`}
			if j.Status != "succeeded" || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("status %s, mapping\n%s\nwant\n%s", j.Status, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			errs := app.Do("GET", "/v1/jobs/"+created.ID+"/errors.jsonl", key, nil).Body
			if !strings.Contains(errs, `"column":"Column 3","field":"joined","severity":"warning","code":"content_mapping"`) || strings.Contains(errs, `"column":"Contact"`) {
				t.Fatalf("issues %s", errs)
			}

			checkContentReview(t, app, k, key)
		})
	}
}

// checkContentReview: the review of matchingCSV ranks as the run does,
// offers the e-mail field to Contact, and gives each column the warnings
// of its mapping.
func checkContentReview(t *testing.T, app *apptest.App, k *checked, key apptest.Caller) {
	t.Helper()
	var created jobView
	k.send(upload(t, app, "people.csv", matchingCSV, map[string]string{"schema": peopleSchema, "options": `{"review":true}`}), key, 202, "").JSON(t, &created)
	waitStatus(t, app, key, "/v1/jobs/"+created.ID, "awaiting_review")
	var rev struct {
		Columns []struct {
			SourceColumn string  `json:"source_column"`
			Field        *string `json:"field"`
			Evidence     *struct {
				Header, Values float64
				Matched        string
			} `json:"evidence"`
			Alternatives []struct {
				Field, Method string
				Confidence    float64
				Evidence      struct {
					Header, Values float64
					Matched        string
				}
			} `json:"alternatives"`
			Warnings []struct {
				Code, Message string
			} `json:"warnings"`
		} `json:"columns"`
	}
	k.do("GET", "/v1/jobs/"+created.ID+"/review", key, nil, 200, "").JSON(t, &rev)
	if c := rev.Columns[1]; c.Field == nil || *c.Field != "email" || c.Evidence == nil || c.Evidence.Matched != "email" || c.Evidence.Header != 0.95 {
		t.Fatalf("Courriel %+v", c)
	}
	c := rev.Columns[3]
	if c.Field != nil || len(c.Alternatives) == 0 {
		t.Fatalf("Contact %+v", c)
	}
	if a := c.Alternatives[0]; a.Field != "email" || a.Method != "content" || a.Confidence >= 0.85 || a.Evidence.Matched != "email" || a.Evidence.Values != 1 {
		t.Fatalf("Contact's alternative %+v", a)
	}
	// Each column carries the warnings the run gives of its mapping,
	// kept with the review in the database.
	if w := rev.Columns[2].Warnings; len(w) != 1 || w[0].Code != "content_mapping" || !strings.Contains(w[0].Message, `Column "Column 3" was mapped to field "joined" by its values`) {
		t.Fatalf("Column 3's warnings %+v", w)
	}
	if w := rev.Columns[1].Warnings; w == nil || len(w) != 0 {
		t.Fatalf("Courriel's warnings %+v, want []", w)
	}
}
