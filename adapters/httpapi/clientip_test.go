package httpapi

import (
	"net/http"
	"testing"
)

func TestProxies_clientIP(t *testing.T) {
	t.Parallel()
	proxies, err := ParseProxies("10.0.0.0/8, 192.0.2.7,2001:db8::/32")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, remote string
		header       map[string]string
		trusted      Proxies
		want         string
	}{
		{"no proxies: the connection, whatever it claims", "198.51.100.1:4000", map[string]string{"X-Forwarded-For": "203.0.113.9"}, nil, "198.51.100.1"},
		{"untrusted peer's claims ignored", "198.51.100.1:4000", map[string]string{"X-Forwarded-For": "203.0.113.9"}, proxies, "198.51.100.1"},
		{"trusted proxy: the client it names", "10.1.2.3:4000", map[string]string{"X-Forwarded-For": "203.0.113.9"}, proxies, "203.0.113.9"},
		{"client's own forged hop ignored", "10.1.2.3:4000", map[string]string{"X-Forwarded-For": "1.1.1.1, 203.0.113.9"}, proxies, "203.0.113.9"},
		{"chain of trusted proxies", "10.1.2.3:4000", map[string]string{"X-Forwarded-For": "1.1.1.1, 203.0.113.9, 192.0.2.7, 10.9.9.9"}, proxies, "203.0.113.9"},
		{"Forwarded wins", "192.0.2.7:80", map[string]string{"Forwarded": `for=203.0.113.5;proto=https, for="[2001:db8::1]:443"`, "X-Forwarded-For": "1.1.1.1"}, proxies, "203.0.113.5"},
		{"Forwarded with port", "10.0.0.1:80", map[string]string{"Forwarded": `for="203.0.113.5:1234"`}, proxies, "203.0.113.5"},
		{"garbage hop stops at the last trusted", "10.0.0.1:80", map[string]string{"X-Forwarded-For": "unknown"}, proxies, "10.0.0.1"},
		{"no header: the proxy", "10.0.0.1:80", nil, proxies, "10.0.0.1"},
		{"IPv4-mapped proxy", "[::ffff:10.0.0.1]:80", map[string]string{"X-Forwarded-For": "203.0.113.9"}, proxies, "203.0.113.9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{}}
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			if got := tc.trusted.clientIP(r); got != tc.want {
				t.Fatalf("clientIP = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParseProxies_rejectsGarbage(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"10.0.0.0/33", "proxy.example", "10.0.0.1/8/1"} {
		if _, err := ParseProxies(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
