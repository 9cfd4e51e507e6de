// Command embed is an example host app: a page of "your" app that opens
// tabnorm's importer, and the backend route that mints an import session
// for it with your API key (which never reaches the browser).
package main

import (
	"embed"
	"encoding/json"
	"flag"
	"html/template"
	"log"
	"net/http"
	"os"

	"github.com/tabnorm/tabnorm/adapters/client"
)

//go:embed index.html
var files embed.FS

const schema = `{"fields":[{"name":"email","type":"string","format":"email","constraints":{"required":true}},
 {"name":"name","type":"string"},{"name":"joined","type":"date"}]}`

func main() {
	addr := flag.String("addr", "localhost:3000", "the address this host app listens on")
	origin := flag.String("origin", "", "the origin browsers open this app at, which the session allows (default http://ADDR)")
	mode := flag.String("mode", "modal", "how the importer opens: modal or inline")
	locale := flag.String("locale", "auto", "the importer's language: auto, en, de, fr, es, it, pt or nl")
	flag.Parse()
	if *origin == "" {
		*origin = "http://" + *addr
	}
	tabnorm := os.Getenv("TABNORM_URL")
	tn, page := client.New(tabnorm, os.Getenv("TABNORM_API_KEY")), template.Must(template.ParseFS(files, "index.html"))
	http.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		_ = page.Execute(w, map[string]string{"Tabnorm": tabnorm, "Mode": *mode})
	})
	http.HandleFunc("POST /import-session", func(w http.ResponseWriter, r *http.Request) {
		s, err := tn.CreateImportSession(r.Context(), client.ImportSessionParams{Schema: json.RawMessage(schema),
			AllowedOrigins: []string{*origin}, Locale: *locale, Metadata: map[string]any{"customer_ref": "acct_42"}})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"url": s.URL, "clientSecret": s.ClientSecret})
	})
	log.Printf("open %s (importer from %s)", *origin, tabnorm)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
