package bootstrap

import (
	"fmt"
	"regexp"
	"strings"
)

// serviceLink matches the variables Kubernetes puts into every pod for a
// Service named tabnorm (docker's legacy links use the same form):
// TABNORM_PORT=tcp://…, TABNORM_SERVICE_HOST, TABNORM_SERVICE_PORT,
// TABNORM_SERVICE_PORT_<name>, TABNORM_PORT_8080_TCP and its _ADDR, _PORT
// and _PROTO. They are not settings and are ignored.
var serviceLink = regexp.MustCompile(`^TABNORM_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(ADDR|PORT|PROTO))?)?)$`)

// nearMiss is the edit distance up to which an unknown variable is taken
// for a misspelt setting and stops the process: a setting silently left at
// its default is worse than a refusal to start.
const nearMiss = 2

// checkNames sorts the TABNORM_ variables of environ that are not
// settings: a near miss of a setting is an error naming it; any other
// unknown name (another Service's links, say TABNORM_API_SERVICE_HOST) is
// a warning naming the closest setting.
func checkNames(environ []string, known map[string]bool) (warnings []string, err error) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "TABNORM_") || known[name] || strings.HasPrefix(name, "TABNORM_TEST_") || serviceLink.MatchString(name) {
			continue
		}
		closest, d := closestSetting(name)
		if d <= nearMiss {
			return nil, fmt.Errorf("%s: unknown setting; did you mean %s? (see the settings table in README.md)", name, closest)
		}
		warnings = append(warnings, fmt.Sprintf("%s is not a setting and is ignored (the closest is %s)", name, closest))
	}
	return warnings, nil
}

// closestSetting returns the setting nearest to name by edit distance.
func closestSetting(name string) (string, int) {
	best, bestD := "", -1
	for _, s := range Settings {
		if d := editDistance(name, s.Name); bestD < 0 || d < bestD {
			best, bestD = s.Name, d
		}
	}
	return best, bestD
}

// editDistance is the Levenshtein distance between a and b (bytes: the
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
