package gate

import "testing"

// TestSecretFile checks the file names and places that hold credentials,
// as the hook asks about an agent's file reads.
func TestSecretFile(t *testing.T) {
	g := testGate(t, Options{})
	for _, p := range []string{"/p/.env", ".env.local", "/home/u/.ssh/id_ed25519", "certs/server.pem", "aws_credentials", ".netrc",
		"/home/u/.aws/config", "/home/u/.config/gh/hosts.yml", "/proc/self/environ", "client_secret_123.json", "secrets.yaml",
		"~/.docker/config.json", "/etc/shadow", "prod.env"} {
		if g.SecretFile(p) == "" {
			t.Errorf("%s is a secret", p)
		}
	}
	for _, p := range []string{"/p/main.go", "id_ed25519.pub", "README.md", "", ".env.example", "src/secret_test.go",
		"/home/u/.ssh/known_hosts", "credentials.go", "/proc/cpuinfo", "/home/u/.bashrc"} {
		if why := g.SecretFile(p); why != "" {
			t.Errorf("%s is not a secret: %s", p, why)
		}
	}
}

// TestHandTriedBypasses holds what trying the held-out corpus's classes by
// hand found: another user's credentials, getent's password hashes, and
// cuff's own subcommands that delete the audit trail or write a file
// anywhere (an export into ~/.bashrc runs the session's commands there).
func TestHandTriedBypasses(t *testing.T) {
	g := corpusTree(t, Options{})
	checkGuardedCases(t, g, []guardedCase{
		{"cat ~root/.ssh/id_rsa", VerdictAsk, "secret"},
		{"cat ~alice/.aws/credentials", VerdictAsk, "secret"},
		{"grep -r token ~bob", VerdictAsk, "home folder"},
		{"getent shadow", VerdictAsk, "password hashes"},
		{"getent gshadow root", VerdictAsk, "password hashes"},
		{"getent passwd", VerdictAllow, ""},
		{"cuff record rm 2024 --force", VerdictAsk, "audit trail"},
		{"cuff runs prune --older-than 1d --force", VerdictAsk, "audit trail"},
		{"cuff record export all --format markdown --output ~/.bashrc", VerdictAsk, "outside the workspace"},
		{"cuff record export all -o/tmp/../home/u/.profile", VerdictAsk, ""},
		{"cuff record export all --output=.git/hooks/pre-commit", VerdictAsk, ""},
		{"cuff record generate -o .cuff/policy.yml", VerdictAsk, ""},
		{"cuff record export abc --format html --output report.html", VerdictAllow, ""},
		{"cuff record show abc --entries --output", VerdictAllow, ""},
	})
}

// TestGoDocHTTPReachesTheNetwork: since Go 1.25 go doc -http runs pkgsite
// with go run MODULE@version, a download, then serves it and opens a
// browser; go doc itself stays local.
func TestGoDocHTTPReachesTheNetwork(t *testing.T) {
	g := corpusTree(t, Options{})
	checkGuardedCases(t, g, []guardedCase{
		{"go doc -http", VerdictAsk, "pkgsite"},
		{"go doc -http=:6060 fmt", VerdictAsk, "pkgsite"},
		{"go doc fmt.Println", VerdictAllow, ""},
	})
}
