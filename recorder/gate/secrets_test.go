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
