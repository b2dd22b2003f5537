package redact

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestStringRedactsBuiltinPatterns(t *testing.T) {
	r := MustNew(Options{})
	cases := []struct{ name, in, want string }{
		{"env assignment", "PASSWORD=hunter2 next", "PASSWORD=[REDACTED] next"},
		{"export assignment", "export DB_PASSWORD='s3cr3t pass'", "export DB_PASSWORD='[REDACTED]'"},
		{"spaced assignment", "client_secret = abc123def", "client_secret = [REDACTED]"},
		{"yaml", "  api_key: abcdef0123456789", "  api_key: [REDACTED]"},
		{"json pair", `{"token": "abc def", "input_tokens": 12}`, `{"token": "[REDACTED]", "input_tokens": 12}`},
		{"escaped json", `"{\"password\": \"x y\"}"`, `"{\"password\": \"[REDACTED]\"}"`},
		{"camel case", `accessToken="tok-1"`, `accessToken="[REDACTED]"`},
		{"url query", "GET /cb?code=1&access_token=abc123&state=x", "GET /cb?code=1&access_token=[REDACTED]&state=x"},
		{"go short assignment", "secret := 42", "secret := [REDACTED]"},
		{"other key env var", "SIGNING_KEY=abcdef", "SIGNING_KEY=[REDACTED]"},
		{"flag with space", "mysql --password s3cret -u root", "mysql --password [REDACTED] -u root"},
		{"flag with equals", "app --api-key=abcd1234", "app --api-key=[REDACTED]"},
		{"flag quoted", `tool --token "two words"`, `tool --token "[REDACTED]"`},
		{"xml", "<password>abc</password>", "<password>[REDACTED]</password>"},
		{"bearer header", "curl -H 'Authorization: Bearer abcdefgh123'", "curl -H 'Authorization: Bearer [REDACTED]'"},
		{"basic header", "Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED]"},
		{"bare bearer", "using bearer abcdefgh12345678 now", "using bearer [REDACTED] now"},
		{"openai key", "key sk-abcdefghijklmnopqrstuvwxyz0123 ok", "key [REDACTED] ok"},
		{"openai project key", "sk-proj-Ab1_cd2-ef3gh4ij5kl6mn7op8qr9 ok", "[REDACTED] ok"},
		{"anthropic key", "ANTHROPIC=sk-ant-api03-abcdefghijklmnopqrstuvwx-yz_0123456789 done", "ANTHROPIC=[REDACTED] done"},
		{"github classic", "ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok", "[REDACTED] ok"},
		{"github oauth", "gho_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "[REDACTED]"},
		{"github server", "ghs_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED]"},
		{"github fine grained", "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS x", "[REDACTED] x"},
		{"gitlab", "glpat-abcdefghij0123456789", "[REDACTED]"},
		{"aws key id", "id AKIAIOSFODNN7EXAMPLE ok", "id [REDACTED] ok"},
		{"aws session key id", "ASIAY34FZKBOKMUTVV7A", "[REDACTED]"},
		{"aws secret env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=[REDACTED]"},
		{"aws credentials file", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED]"},
		{"aws secret json", `"aws_secret_key":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`, `"aws_secret_key":"[REDACTED]"`},
		{"google", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "[REDACTED]"},
		{"stripe", "sk_live_abcdefghij0123456789", "[REDACTED]"},
		{"npm", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "//registry.npmjs.org/:_authToken=[REDACTED]"},
		{"slack bot", "xoxb-123456789012-abcdefghijk slack", "[REDACTED] slack"},
		{"slack app", "xapp-1-A0123456789-abcdef", "[REDACTED]"},
		{"slack webhook", "https://hooks.slack.com/services/T000/B000/XXXXXXXX", "https://hooks.slack.com/services/[REDACTED]"},
		{"jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk done", "jwt [REDACTED] done"},
		{"url credentials", "url https://bob:pa55w0rd@example.com/x ok", "url https://bob:[REDACTED]@example.com/x ok"},
		{"url empty user", "redis://:hunter2@localhost:6379/0", "redis://:[REDACTED]@localhost:6379/0"},
		{"two secrets one line", "A_TOKEN=x B_SECRET=y", "A_TOKEN=[REDACTED] B_SECRET=[REDACTED]"},
		{"curl user", "curl -u admin:hunter2-x https://h", "curl -u admin:[REDACTED] https://h"},
		{"curl long user", "curl --user=admin:hunter2-x h", "curl --user=admin:[REDACTED] h"},
		{"mysql attached", "mysql -u root -phunter2-x app", "mysql -u root -p[REDACTED] app"},
		{"docker login", "docker login -u ci -p hunter2-x reg", "docker login -u ci -p [REDACTED] reg"},
		{"sshpass", "sshpass -p 'two words' ssh h", "sshpass -p '[REDACTED]' ssh h"},
		{"netrc", "machine h login me password hunter2-x", "machine h login me password [REDACTED]"},
		{"pass", "PASS=hunter2-x ./run", "PASS=[REDACTED] ./run"},
		{"db pass", "db_pass: hunter2-x", "db_pass: [REDACTED]"},
		{"camel pass", `dbPass="hunter2-x"`, `dbPass="[REDACTED]"`},
		{"yaml pwd", "  pwd: hunter2-x", "  pwd: [REDACTED]"},
		{"mysql pwd", "MYSQL_PWD=hunter2-x mysql", "MYSQL_PWD=[REDACTED] mysql"},
		{"secret suffix", "SECRET_KEY_BASE=abc123 rails s", "SECRET_KEY_BASE=[REDACTED] rails s"},
		{"url-encoded bearer", "GET /x?auth=Bearer%20abcdefgh1234 HTTP", "GET /x?auth=Bearer%20[REDACTED] HTTP"},
		{"hex after key name", "the signing key is " + strings.Repeat("ab12", 10) + ".", "the signing key is [REDACTED]."},
		{"account key", "AccountName=a;AccountKey=abc+def==;Endpoint", "AccountName=a;AccountKey=[REDACTED];Endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.String(c.in); got != c.want {
				t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestStringLeavesOrdinaryTextAlone(t *testing.T) {
	r := MustNew(Options{})
	for _, in := range []string{
		"grep: /etc/passwd: Permission denied",
		"--- PASS: TestTokenizer (0.00s)",
		"sort by key then value",
		`{"input_tokens": 1200, "output_tokens": 33, "max_tokens": 4096}`,
		"task-runner-integration-tests-foo-bar-baz",
		"PWD=/home/dev/project",
		"https://example.com/path?q=1",
		"mailto:dev@example.com and git@github.com:org/repo.git",
		"token_count: 12",
		"--token-file /run/secrets/token.txt",
		"PASSWORD=",
		"the keyboard is on the desk-top",
		"Visiting Asia in AKIA mode",
		"eyJ alone is not a token",
		"run_test_suite and desk_live_demo",
		"--- PASS: TestLogin (0.01s)\nPASS: 12 FAIL: 0",
		"bypass=1 compass: north OLDPWD=/tmp PWD=/home/dev",
		"docker run -u 1000:1000 -p 8080:80 img; mkdir -p /tmp/x; ssh -p 22 host; sort -u a:b",
		"grep -a foo:bar file; tar -a -cf x.tar.gz dir",
		"Cache restored from key: node-cache-Linux-x64-3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
		"commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f (key rotation done)",
		"a key-value store; the keys are hashed",
		"\x1b[1mbold text\x1b[0m and \x1b[32mgreen\x1b[39m",
		ordinaryOutput(64 << 10),
	} {
		if got := r.String(in); got != in {
			t.Errorf("String changed ordinary text\n  in %q\n got %q", in, got)
		}
	}
}

func TestPrivateKeyBlocks(t *testing.T) {
	r := MustNew(Options{})
	body := "MIIEowIBAAKCAQEAx7v0m9fL3Q2x\nkq8+Pz/7w==\n"
	cases := []struct{ name, in, want string }{
		{
			"complete",
			"before\n-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----\nafter",
			"before\n-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----\nafter",
		},
		{
			"pkcs8",
			"-----BEGIN PRIVATE KEY-----\n" + body + "-----END PRIVATE KEY-----",
			"-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----",
		},
		{
			"truncated by output limits",
			"-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "b3BlbnNzaC1r\n... [truncated 2048 bytes] ...\ntail line",
			"-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n... [truncated 2048 bytes] ...\ntail line",
		},
		{
			"truncated encrypted with headers",
			"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0A1B\n\n" + body,
			"-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n",
		},
		{
			"json escaped",
			`{"content":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\nAAAA==\n-----END EC PRIVATE KEY-----\n"}`,
			`{"content":"-----BEGIN EC PRIVATE KEY-----\n[REDACTED]\n-----END EC PRIVATE KEY-----\n"}`,
		},
		{
			"first truncated, second complete",
			"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----BEGIN RSA PRIVATE KEY-----\nBBBB\n-----END RSA PRIVATE KEY-----",
			"-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----",
		},
		{
			"pgp",
			"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----",
			"-----BEGIN PGP PRIVATE KEY BLOCK-----\n[REDACTED]\n-----END PGP PRIVATE KEY BLOCK-----",
		},
		{
			"public key untouched",
			"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
			"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.String(c.in); got != c.want {
				t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestLongSecretsAreCoveredWhole(t *testing.T) {
	r := MustNew(Options{})
	long := strings.Repeat("a1B2", 3*windowForward)
	for _, in := range []string{
		"PASSWORD=" + long,
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJ" + long + ".sig",
		strings.Repeat("x", 3*windowForward) + " token=" + long + " end",
		strings.Repeat("k", 2*windowBack) + "_TOKEN=" + long,
	} {
		got := r.String(in)
		if strings.Contains(got, "a1B2") {
			t.Errorf("part of a %d-byte secret survived: ...%q", len(long), got[max(0, len(got)-80):])
		}
		if !strings.Contains(got, DefaultMarker) {
			t.Errorf("no marker in output of %d bytes", len(got))
		}
	}
}

func TestRedactionIsIdempotent(t *testing.T) {
	r := MustNew(Options{})
	in := "PASSWORD=x url https://u:p@h Authorization: Bearer abcdefgh123 ghp_abcdefghijklmnopqrstuvwxyz0123456789\n" +
		"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n--token abc <secret>s</secret>"
	once := r.String(in)
	if twice := r.String(once); twice != once {
		t.Errorf("second pass changed output\nonce  %q\ntwice %q", once, twice)
	}
}

func TestOptions(t *testing.T) {
	in := "PASSWORD=x id=EMP-12345 pin=4321 AKIAIOSFODNN7EXAMPLE"

	off := MustNew(Options{Disabled: true})
	if got := off.String(in); got != in {
		t.Errorf("disabled redactor changed text: %q", got)
	}

	custom := MustNew(Options{
		Patterns: []string{`EMP-\d+`, `pin=(?P<secret>\d+)`},
		Marker:   "***",
	})
	if got, want := custom.String(in), "PASSWORD=*** id=*** pin=*** ***"; got != want {
		t.Errorf("custom patterns: got %q, want %q", got, want)
	}

	noAWS := MustNew(Options{DisableBuiltin: []string{"aws-access-key-id"}})
	if got, want := noAWS.String(in), "PASSWORD=[REDACTED] id=EMP-12345 pin=4321 AKIAIOSFODNN7EXAMPLE"; got != want {
		t.Errorf("disabled rule: got %q, want %q", got, want)
	}
}

func TestNewErrors(t *testing.T) {
	_, err := New(Options{Patterns: []string{`ok`, `sk-[`}})
	want := "redaction pattern 2 \"sk-[\" does not compile: error parsing regexp: missing closing ]: `[`"
	if err == nil || err.Error() != want {
		t.Errorf("bad pattern: got %v, want %s", err, want)
	}
	_, err = New(Options{DisableBuiltin: []string{"nope"}})
	if err == nil || !strings.HasPrefix(err.Error(), `unknown built-in redaction rule "nope" (known: private-key, assignment, `) {
		t.Errorf("unknown rule: got %v", err)
	}
}

func TestBytes(t *testing.T) {
	r := MustNew(Options{})
	plain := []byte("nothing to see")
	if got := r.Bytes(plain); &got[0] != &plain[0] {
		t.Error("Bytes copied input that needed no redaction")
	}
	if got := string(r.Bytes([]byte("TOKEN=abc"))); got != "TOKEN=[REDACTED]" {
		t.Errorf("Bytes: got %q", got)
	}
}

func TestInvalidUTF8(t *testing.T) {
	r := MustNew(Options{})
	in := "\xff\xfePASSWORD=\xc3(\x80 \xe2\x82 https://u:\xf0\x28@h token: \xed\xa0\x80"
	got := r.String(in)
	if strings.Contains(got, "\xc3(") {
		t.Errorf("secret with invalid UTF-8 survived: %q", got)
	}
	// A window edge never splits a rune: valid input stays valid.
	valid := strings.Repeat("é", windowBack) + "TOKEN=" + strings.Repeat("ü", 3000) + " x"
	if out := r.String(valid); !utf8.ValidString(out) {
		t.Errorf("valid UTF-8 became invalid")
	}
}

func TestConcurrentUse(t *testing.T) {
	r := MustNew(Options{})
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				in := fmt.Sprintf("g%d i%d PASSWORD=secret%d-%d", g, i, g, i)
				want := fmt.Sprintf("g%d i%d PASSWORD=[REDACTED]", g, i)
				if got := r.String(in); got != want {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent String: %q", e)
	}
}

// TestAssignmentWhoseValueIsTheNextKey: the value of one assignment can be
// the key of the next; the second's value is redacted too (found by
// FuzzRedact: the first match used to hide the second).
func TestAssignmentWhoseValueIsTheNextKey(t *testing.T) {
	r := MustNew(Options{})
	in := "token:\tapi_key = \"qbukHVyuZZBevu06m7SJKBtSeSophZyH\" 0"
	if out := r.String(in); strings.Contains(out, "qbukHVyuZZBevu06m7SJKBtSeSophZyH") {
		t.Errorf("%q -> %q", in, out)
	}
}

// TestBuiltinPatternsCompile: every built-in rule's pattern compiles (they
// are compiled when first tried, not when a Redactor is made).
func TestBuiltinPatternsCompile(t *testing.T) {
	for _, sp := range builtinSpecs() {
		if sp.match != nil {
			continue
		}
		if _, err := regexp.Compile(`^(?:` + sp.pattern + `)`); err != nil {
			t.Errorf("built-in rule %s: %v", sp.name, err)
		}
	}
}
