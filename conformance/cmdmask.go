package conformance

import (
	"net/url"
	"regexp"
	"strings"
)

// maskedValue stands for a value of the engine command that may be a
// credential.
const maskedValue = "[redacted]"

// credentialName matches the names of flags, environment assignments and
// URL query parameters whose values are taken for credentials.
var credentialName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|api[-_]?key|auth|credential|session|signature|sig$|^key$|[-_]key$)`)

// urlInArg finds the URLs inside one argument of the engine command.
var urlInArg = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// maskCommand returns the engine command as reports, spec names and logs
// show it: the suite cannot know which of its arguments are secrets, so
// every place a credential is usually passed is masked — the password of
// a URL's user info, every query value of a URL (a browser pool's token
// lives in the query), and the value of a flag (--token=x, --token x) or
// an environment assignment (TOKEN=x) whose name reads as a credential.
// The command the suite runs is not changed.
func maskCommand(argv []string) []string {
	out := make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		if maskNext && !strings.HasPrefix(a, "-") {
			out[i], maskNext = maskedValue, false
			continue
		}
		maskNext = false
		a = urlInArg.ReplaceAllStringFunc(a, maskURL)
		if name, _, ok := strings.Cut(a, "="); ok && !strings.Contains(name, "://") && credentialName.MatchString(strings.TrimLeft(name, "-")) {
			a = name + "=" + maskedValue
		} else if strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && credentialName.MatchString(strings.TrimLeft(a, "-")) {
			maskNext = true
		}
		out[i] = a
	}
	return out
}

// maskURL masks the user info's password and every query value of raw.
func maskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Not parseable: mask everything after the first '?' or '@'.
		if i := strings.IndexAny(raw, "?@"); i >= 0 {
			return raw[:i+1] + maskedValue
		}
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), maskedValue)
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=" + maskedValue
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	s := u.String()
	// url.String escapes the brackets of the marker in user info.
	return strings.ReplaceAll(strings.ReplaceAll(s, "%5Bredacted%5D", maskedValue), "%5bredacted%5d", maskedValue)
}
