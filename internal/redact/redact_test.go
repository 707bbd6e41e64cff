package redact

import (
	"strings"
	"testing"
)

func TestSecrets(t *testing.T) {
	cases := map[string]string{
		`--registry "user:s3cr3t@127.0.0.1:1/nvidia/driver": not an image repository`: `--registry "[redacted]@127.0.0.1:1/nvidia/driver": not an image repository`,
		`https://user:s3cr3t@registry.example.com/v2/`:                                `https://[redacted]@registry.example.com/v2/`,
		`https://tok3n@registry.example.com/v2/`:                                      `https://[redacted]@registry.example.com/v2/`,
		`127.0.0.1:1/nvidia/driver?token=s3cr3t&x=1`:                                  `127.0.0.1:1/nvidia/driver?token=[redacted]&x=[redacted]`,
		`proxy said: Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.sig`:          `proxy said: Authorization: Bearer [redacted]`,
		`header "Authorization": "Basic dXNlcjpzM2NyM3Q="`:                            `header "Authorization": "Basic [redacted]"`,
		`authorization=s3cr3t-raw-value`:                                              `authorization=[redacted]`,
		`password: hunter2, then`:                                                     `password: [redacted], then`,
		`access_token=abc.def`:                                                        `access_token=[redacted]`,
		// What is not a secret stays: hosts, ports, paths, image tags.
		`registry 127.0.0.1:5000: repository nvidia/driver: repository not found (404 Not Found NAME_UNKNOWN)`: `registry 127.0.0.1:5000: repository nvidia/driver: repository not found (404 Not Found NAME_UNKNOWN)`,
		`nvcr.io/nvidia/driver:550-5.15.0-119-generic-ubuntu22.04`:                                             `nvcr.io/nvidia/driver:550-5.15.0-119-generic-ubuntu22.04`,
		`cluster https://10.0.0.1:6443: forbidden to list pods`:                                                `cluster https://10.0.0.1:6443: forbidden to list pods`,
		`image nvcr.io/nvidia/cuda:12.4.1-base@sha256:0123abcd`:                                                `image nvcr.io/nvidia/cuda:12.4.1-base@sha256:0123abcd`,
	}
	for in, want := range cases {
		if got := Secrets(in); got != want {
			t.Errorf("Secrets(%q)\n got %q\nwant %q", in, got, want)
		}
		if strings.Contains(Secrets(in), "s3cr3t") {
			t.Errorf("Secrets(%q) kept the secret", in)
		}
	}
}

// A URL that does not parse is masked from "://" to its last "@": its
// password may hold a space, a slash or a quote, which no pattern over
// free text can tell from the words around it.
func TestURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:s3 cr3t@host/":        "http://[redacted]@host/",
		"https://admin:s3/cr3t@[::1":       "https://[redacted]@[::1",
		`http://user:s3cr3t"x@host:bad`:    "http://[redacted]@host:bad",
		"https://user:pw@host:9091/x?t=ab": "https://[redacted]@host:9091/x?t=[redacted]",
		"http://pushgateway:9091":          "http://pushgateway:9091",
	} {
		if got := URL(raw); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
	msg := `host must be a URL or a host:port pair: "http://admin:s3\"cr3t@127.0.0.1:bad"`
	if got := Scrub(msg, `http://admin:s3"cr3t@127.0.0.1:bad`); strings.Contains(got, "cr3t") {
		t.Errorf("Scrub left the password: %s", got)
	}
}
