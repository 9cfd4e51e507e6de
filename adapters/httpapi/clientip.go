package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/gin-gonic/gin"
)

const clientIPKey = "client_ip"

// Proxies are the addresses of the reverse proxies whose forwarding
// headers are believed (TABNORM_TRUSTED_PROXIES). Without them every
// client behind a proxy would share the proxy's address: one client's
// failed sign-ins would throttle everyone and the audit log would name the
// proxy.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDRs or single addresses.
func ParseProxies(s string) (Proxies, error) {
	var out Proxies
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			part = netip.PrefixFrom(a, a.BitLen()).String()
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (ps Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the address of the client: the connection's, unless that is
// a trusted proxy, in which case the forwarding chain (Forwarded, else
// X-Forwarded-For) is walked from the nearest hop back to the first
// address that is not a trusted proxy. Hops beyond it are the client's own
// claims and ignored; an unparsable hop stops the walk at the last
// trusted one.
func (ps Proxies) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || len(ps) == 0 || !ps.trusted(addr) {
		return host
	}
	hops := forwardedFor(r.Header)
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(hops[i])
		if err != nil {
			break
		}
		addr = hop.Unmap()
		if !ps.trusted(addr) {
			break
		}
	}
	return addr.String()
}

// forwardedFor lists the client addresses of the forwarding headers, the
// client first: RFC 7239 Forwarded when present, else X-Forwarded-For.
func forwardedFor(h http.Header) []string {
	var hops []string
	if fwd := h.Values("Forwarded"); len(fwd) > 0 {
		for _, line := range fwd {
			for _, elem := range strings.Split(line, ",") {
				for _, pair := range strings.Split(elem, ";") {
					k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
					if !ok || !strings.EqualFold(k, "for") {
						continue
					}
					v = strings.Trim(v, `"`)
					if strings.HasPrefix(v, "[") { // "[2001:db8::1]:4711"
						v, _, _ = strings.Cut(v[1:], "]")
					} else if host, _, err := net.SplitHostPort(v); err == nil {
						v = host
					}
					hops = append(hops, v)
				}
			}
		}
		return hops
	}
	for _, line := range h.Values("X-Forwarded-For") {
		for _, v := range strings.Split(line, ",") {
			hops = append(hops, strings.TrimSpace(v))
		}
	}
	return hops
}

// resolveClient works out the client's address once per request, for the
// throttles, the audit log and the access log.
func (a *API) resolveClient(c *gin.Context) {
	c.Set(clientIPKey, a.cfg.TrustedProxies.clientIP(c.Request))
	c.Next()
}

func clientIP(c *gin.Context) string { return c.GetString(clientIPKey) }
