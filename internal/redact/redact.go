// Package redact takes credentials out of text before drvcheck prints it.
// Errors quote what users typed (a --registry value with user:pass@ or
// ?token=) and what servers answered (a proxy may echo the Authorization
// header), so every error, warning and source name goes through Secrets
// on its way out: one function, rather than care at each error path.
package redact

import (
	"net/url"
	"regexp"
	"strconv"
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

// URL is raw without its credentials, for a message that names it, even
// when raw does not parse: then the text between "://" and its last "@"
// may be a password holding a space, a slash or a quote, which Secrets
// cannot tell from the words around it, and all of it is masked.
func URL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		if u.User != nil {
			u.User = url.User(Mask)
		}
		if u.RawQuery != "" {
			u.RawQuery = Secrets("?" + u.RawQuery)[1:]
		}
		return strings.Replace(u.String(), url.QueryEscape(Mask), Mask, 1)
	}
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return Secrets(raw)
	}
	start := strings.Index(raw, "://")
	if start < 0 || start > at {
		start = 0
	} else {
		start += len("://")
	}
	return raw[:start] + Mask + raw[at:]
}

// Scrub replaces raw in msg, as written and as %q writes it, by URL(raw):
// a library's error may quote the URL it could not use.
func Scrub(msg, raw string) string {
	if raw == "" {
		return msg
	}
	safe := URL(raw)
	quoted := strconv.Quote(raw)
	msg = strings.ReplaceAll(msg, quoted[1:len(quoted)-1], safe)
	return strings.ReplaceAll(msg, raw, safe)
}
