package redact

import "testing"

// TestHtpasswdPassword: htpasswd -b takes the password as its last
// operand; only that operand is redacted, in every way of writing it.
func TestHtpasswdPassword(t *testing.T) {
	r := MustNew(Options{})
	for in, want := range map[string]string{
		"htpasswd -b .htpasswd admin s3cr3t-pw":            "htpasswd -b .htpasswd admin [REDACTED]",
		"htpasswd -bB -C 10 .htpasswd admin s3cr3t":        "htpasswd -bB -C 10 .htpasswd admin [REDACTED]",
		"htpasswd -nb admin 'two words'":                   "htpasswd -nb admin '[REDACTED]'",
		"sudo htpasswd -c -b /etc/nginx/.htpasswd u \"p\"": "sudo htpasswd -c -b /etc/nginx/.htpasswd u \"[REDACTED]\"",
		"htpasswd -c .htpasswd admin":                      "htpasswd -c .htpasswd admin", // asks for the password
		"htpasswd -v .htpasswd admin":                      "htpasswd -v .htpasswd admin",
		"htpasswd -b .htpasswd admin pw; echo done":        "htpasswd -b .htpasswd admin [REDACTED]; echo done",
		"htpasswd -D .htpasswd admin":                      "htpasswd -D .htpasswd admin",
		"man htpasswd":                                     "man htpasswd",
	} {
		if got := r.String(in); got != want {
			t.Errorf("%q\n got %q\nwant %q", in, got, want)
		}
	}
}
