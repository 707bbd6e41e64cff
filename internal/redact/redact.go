// Package redact takes credentials out of text before drvcheck prints it.
// Errors quote what users typed (a --registry value with user:pass@ or
// ?token=) and what servers answered (a proxy may echo the Authorization
// header), so every error, warning and source name goes through Secrets
// on its way out: one function, rather than care at each error path.
package redact

import (
	"regexp"
	"strings"
)

// Mask stands where a secret was.
const Mask = "[redacted]"

var (
	// "Bearer abc", "Basic dXNlcjpwYXNz" (HTTP auth schemes).
	authScheme = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+`)
	// "Authorization: xyz" with a value not in a known scheme.
	authHeader = regexp.MustCompile(`(?i)(authorization"?\s*[:=]\s*"?)([^"\s,;]+)`)
	// user:password@ in a URL or an authority (user:pass@host/repo).
	userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)?[^\s/@"'()\[\]]+:[^\s/@"'()\[\]]*@`)
	// user@ after a scheme (https://token@host).
	schemeUser = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^\s/@"'()\[\]:]+@`)
	// ?a=b&c=d: query values may be tokens (?token=, ?X-Amz-Signature=).
	query = regexp.MustCompile(`([?&][^=\s&"'?#]+=)[^&\s"'#)]*`)
	// token=..., password: ... and the like outside a query.
	keyValue = regexp.MustCompile(`(?i)\b((?:access_?|refresh_?|id_?)?token|password|passwd|secret|api[_-]?key)(\s*[=:]\s*)[^\s&"',;)]+`)
)

// replaceUserinfo masks user:password@ except before a digest, where the
// "@" is an image's (cuda:12.4.1-base@sha256:…), not a credential's.
func replaceUserinfo(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range userinfo.FindAllStringSubmatchIndex(s, -1) {
		rest := s[m[1]:]
		if strings.HasPrefix(rest, "sha256:") || strings.HasPrefix(rest, "sha512:") {
			continue
		}
		b.WriteString(s[last:m[0]])
		if m[2] >= 0 {
			b.WriteString(s[m[2]:m[3]])
		}
		b.WriteString(Mask + "@")
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// Secrets returns s with every credential it recognises replaced by Mask.
func Secrets(s string) string {
	s = authScheme.ReplaceAllString(s, "$1 "+Mask)
	s = authHeader.ReplaceAllStringFunc(s, func(m string) string {
		sub := authHeader.FindStringSubmatch(m)
		if sub[2] == Mask || authScheme.MatchString(sub[2]+" x") {
			return m
		}
		return sub[1] + Mask
	})
	s = replaceUserinfo(s)
	s = schemeUser.ReplaceAllString(s, "${1}"+Mask+"@")
	s = query.ReplaceAllString(s, "${1}"+Mask)
	return keyValue.ReplaceAllString(s, "${1}${2}"+Mask)
}
