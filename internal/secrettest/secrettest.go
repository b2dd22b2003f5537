// Package secrettest builds a corpus of fake secrets with the shapes real
// ones have (provider tokens, keys, passwords in flags, assignments, URLs,
// headers), for tests that assert nothing cuff writes or shows leaks one.
// The values are generated when a test runs, from a fixed seed, and every
// prefix is assembled from parts: nothing here is a secret, and nothing in
// the source looks like one to a secret scanner.
package secrettest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Case is one secret as it shows up in what an agent runs or reads.
type Case struct {
	// Name says what kind of secret it is.
	Name string
	// Secret is the value that must never be written or shown.
	Secret string
	// Text is a line that holds it: command output, a config file, a
	// command line.
	Text string
	// Argv, when set, is a command whose arguments hold it, as cuff exec
	// or an agent would run it.
	Argv []string
}

// Leaks reports whether out shows any part of the secret of c long enough
// to matter: the whole secret, or (for a secret of 12 bytes or more) any
// 10 bytes of it in a row.
func (c Case) Leaks(out string) bool {
	if strings.Contains(out, c.Secret) {
		return true
	}
	const window = 10
	if len(c.Secret) < 12 {
		return false
	}
	for i := 0; i+window <= len(c.Secret); i++ {
		if strings.Contains(out, c.Secret[i:i+window]) {
			return true
		}
	}
	return false
}

// gen makes random values from a fixed seed.
type gen struct{ r *rand.Rand }

const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	lowerAl  = "abcdefghijklmnopqrstuvwxyz0123456789"
	upperAl  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexChars = "0123456789abcdef"
	b64url   = alnum + "-_"
	b64std   = alnum + "+/"
)

func (g gen) pick(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

func (g gen) hex(n int) string { return g.pick(hexChars, n) }

func (g gen) digits(n int) string { return g.pick("0123456789", n) }

func (g gen) b64(nBytes int) string {
	b := make([]byte, nBytes)
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (g gen) password() string {
	return g.pick(alnum, 6) + g.pick("!#%^*", 1) + g.pick(alnum, 7)
}

// p joins parts into a prefix, so that no prefix of a real format is
// written whole in the source.
func p(parts ...string) string { return strings.Join(parts, "") }

// Corpus returns the secrets, at least 60 formats, the same on every call.
func Corpus() []Case {
	g := gen{rand.New(rand.NewPCG(13, 2026))}
	var cs []Case
	tok := func(name, secret, text string) {
		cs = append(cs, Case{Name: name, Secret: secret, Text: fmt.Sprintf(text, secret)})
	}
	// Provider tokens, found by their shape wherever they are.
	for _, t := range []struct {
		name, prefix, set string
		n                 int
	}{
		{"github classic token", p("gh", "p_"), alnum, 36},
		{"github oauth token", p("gh", "o_"), alnum, 36},
		{"github user token", p("gh", "u_"), alnum, 36},
		{"github server token", p("gh", "s_"), alnum, 36},
		{"github refresh token", p("gh", "r_"), alnum, 36},
		{"github fine-grained token", p("github", "_pat_"), alnum + "_", 82},
		{"gitlab token", p("gl", "pat-"), b64url, 20},
		{"gitlab runner token", p("gl", "rt-"), b64url, 24},
		{"gitlab deploy token", p("gl", "dt-"), b64url, 20},
		{"slack bot token", p("xo", "xb-"), "0123456789", 12},
		{"slack user token", p("xo", "xp-"), "0123456789", 12},
		{"stripe live key", p("sk", "_live_"), alnum, 24},
		{"stripe restricted key", p("rk", "_live_"), alnum, 24},
		{"stripe test key", p("sk", "_test_"), alnum, 24},
		{"stripe webhook secret", p("wh", "sec_"), alnum, 32},
		{"aws access key id", p("AK", "IA"), upperAl, 16},
		{"aws session key id", p("AS", "IA"), upperAl, 16},
		{"google api key", p("AI", "za"), b64url, 35},
		{"google oauth client secret", p("GOC", "SPX-"), b64url, 28},
		{"google oauth access token", p("ya", "29."), b64url, 60},
		{"openai key", p("sk", "-proj-"), b64url, 48},
		{"anthropic key", p("sk", "-ant-api03-"), b64url, 93},
		{"hugging face token", p("hf", "_"), alnum, 34},
		{"npm token", p("np", "m_"), alnum, 36},
		{"pypi token", p("py", "pi-AgEIcHlwaS5vcmc"), b64url, 60},
		{"digitalocean token", p("do", "p_v1_"), hexChars, 64},
		{"shopify access token", p("sh", "pat_"), hexChars, 32},
		{"shopify shared secret", p("sh", "pss_"), hexChars, 32},
		{"atlassian api token", p("AT", "ATT3xFfGF0"), b64url, 100},
		{"linear api key", p("lin", "_api_"), alnum, 40},
		{"doppler token", p("dp", ".pt."), alnum, 43},
		{"databricks token", p("da", "pi"), hexChars, 32},
		{"vault token", p("hv", "s."), b64url, 90},
		{"grafana service account token", p("gl", "sa_"), alnum, 32},
		{"new relic api key", p("NR", "AK-"), upperAl, 27},
		{"postman api key", p("PM", "AK-"), hexChars, 24},
		{"notion secret", p("secret", "_"), alnum, 43},
		{"notion token", p("nt", "n_"), alnum, 46},
		{"supabase token", p("sb", "p_"), hexChars, 40},
		{"groq key", p("gs", "k_"), alnum, 52},
		{"replicate token", p("r8", "_"), alnum, 37},
		{"perplexity key", p("pp", "lx-"), alnum, 48},
		{"xai key", p("xa", "i-"), alnum, 80},
		{"pinecone key", p("pc", "sk_"), alnum, 60},
		{"langsmith key", p("ls", "v2_pt_"), hexChars, 42},
		{"sourcegraph token", p("sg", "p_"), hexChars, 40},
		{"mailgun key", p("ke", "y-"), hexChars, 32},
		{"age secret key", p("AGE-SECRET", "-KEY-1"), "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58},
	} {
		secret := t.prefix + g.pick(t.set, t.n)
		tok(t.name, secret, "export TOKEN_HINT=unused; echo using %s now")
	}
	// Shapes with inner structure.
	sg := p("S", "G.") + g.pick(b64url, 22) + "." + g.pick(b64url, 43)
	tok("sendgrid key", sg, "SENDGRID=%s")
	tg := g.digits(10) + ":" + p("AA", "") + g.pick(b64url, 33)
	tok("telegram bot token", tg, "bot token %s configured")
	jwt := p("ey", "J") + g.pick(b64url, 30) + "." + p("ey", "J") + g.pick(b64url, 60) + "." + g.pick(b64url, 43)
	tok("jwt", jwt, "Authorization: Bearer %s")
	discord := "M" + g.pick(alnum, 23) + "." + g.pick(b64url, 6) + "." + g.pick(b64url, 27)
	tok("discord bot token", discord, "DISCORD_BOT_TOKEN=%s")
	tfc := g.pick(alnum, 14) + p(".atlas", "v1.") + g.pick(alnum, 60)
	tok("terraform cloud token", tfc, "credentials \"app.terraform.io\" { token = \"%s\" }")
	slackHook := "T" + g.pick(upperAl, 8) + "/B" + g.pick(upperAl, 8) + "/" + g.pick(alnum, 24)
	tok("slack webhook", slackHook, "curl -X POST https://hooks.slack"+".com/services/%s -d '{}'")
	awsSecret := g.pick(b64std, 40)
	tok("aws secret access key", awsSecret, "aws_secret_access_key = %s")
	tok("azure storage key", g.b64(64), "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;EndpointSuffix=core.windows.net")
	tok("azure shared access key", g.b64(32), "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=%s")
	pem := g.b64(600)
	var pemBody strings.Builder
	for i := 0; i < len(pem); i += 64 {
		pemBody.WriteString(pem[i:min(i+64, len(pem))] + "\n")
	}
	cs = append(cs, Case{Name: "rsa private key", Secret: pem[128:192], // its third line
		Text: "-----BEGIN RSA " + "PRIVATE KEY-----\n" + pemBody.String() + "-----END RSA " + "PRIVATE KEY-----"})
	cs = append(cs, Case{Name: "openssh private key, its end cut off", Secret: pem[320:384], // its sixth line
		Text: "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + pemBody.String()[:500]})
	cs = append(cs, Case{Name: "rsa private key run as a command, its first line", Secret: pem[:64],
		Text: "-----BEGIN RSA " + "PRIVATE KEY-----\n" + pemBody.String() + "-----END RSA " + "PRIVATE KEY-----"})
	tok("doppler service token", p("dp", ".st.")+"dev."+g.pick(alnum, 40), "DOPPLER=%s doppler run -- make")
	tok("twilio api key", p("S", "K")+g.hex(32), "export TOKEN_HINT=unused; echo using %s now")
	tok("discord webhook", g.pick(b64url, 68), "curl -X POST https://discord"+".com/api/webhooks/"+g.digits(18)+"/%s -d '{}'")
	// Credentials in URLs and headers.
	pw := g.password()
	tok("url credentials", pw, "git clone https://deploy:%s@git.example.com/repo.git")
	tok("database url", g.pick(alnum, 20), "DATABASE_URL=postgres://app:%s@db.internal:5432/app")
	tok("basic auth header", g.b64(24), "curl -H 'Authorization: Basic %s' https://api.example.com")
	tok("bearer token", g.pick(b64url, 40), "Authorization: Bearer %s")
	tok("url-encoded bearer", g.pick(alnum, 40), "GET /api?auth=Bearer%%20%s HTTP/1.1")
	tok("x-api-key header", g.hex(40), "curl -H 'X-Api-Key: %s' https://api.example.com")
	tok("sentry dsn", g.hex(32), "SENTRY_DSN=https://%s@o123456.ingest.sentry.io/789")
	// Assignments: env files, shells, YAML, JSON, TOML.
	tok("password assignment", g.password(), "DB_PASSWORD=%s")
	tok("pass assignment", g.password(), "PASS=%s ./deploy.sh")
	tok("db pass assignment", g.password(), "export DB_PASS='%s'")
	tok("mysql pwd variable", g.password(), "MYSQL_PWD=%s mysql -u root")
	tok("yaml pwd", g.password(), "  pwd: %s")
	tok("yaml password", g.password(), "  password: \"%s\"")
	tok("secret key base", g.hex(128), "SECRET_KEY_BASE=%s")
	tok("django secret key", g.pick(alnum+"!@#%^&*(-_=+)", 50), "SECRET_KEY = '%s'")
	tok("json client secret", g.pick(b64url, 40), "{\"client_id\": \"abc\", \"client_secret\": \"%s\"}")
	tok("toml api key", g.pick(alnum, 32), "api_key = \"%s\"")
	tok("npmrc auth token", g.pick(alnum, 36), "//registry.npmjs.org/:_authToken=%s")
	tok("netrc password", g.password(), "machine api.example.com login deploy password %s")
	tok("hex after key name", g.hex(64), "the signing key is %s")
	tok("hex token after colon-less name", g.hex(40), "webhook token %s (keep it safe)")
	tok("twilio auth token", g.hex(32), "TWILIO_AUTH_TOKEN=%s")
	tok("private key env", g.hex(64), "ETH_PRIVATE_KEY=0x%s")
	// Passwords in command-line flags, in the text of a command and as argv.
	flag := func(name, secret string, argv ...string) {
		cs = append(cs, Case{Name: name, Secret: secret, Text: shellJoin(argv), Argv: argv})
	}
	user, pass := "deploy", g.password()
	flag("curl -u user:password", pass, "curl", "-u", user+":"+pass, "https://api.example.com")
	pass = g.password()
	flag("curl --user user:password", pass, "curl", "--user", user+":"+pass, "https://api.example.com")
	pass = g.password()
	flag("mysql -pPASSWORD", pass, "mysql", "-u", "root", "-p"+pass, "app")
	pass = g.password()
	flag("mysqldump --password=", pass, "mysqldump", "--password="+pass, "app")
	pass = g.password()
	flag("docker login -p", pass, "docker", "login", "-u", "ci", "-p", pass, "registry.example.com")
	pass = g.password()
	flag("sshpass -p", pass, "sshpass", "-p", pass, "ssh", "deploy@host")
	pass = g.password()
	flag("--password value", pass, "psql-wrapper", "--password", pass, "--host", "db")
	pass = g.password()
	flag("--token value", pass, "gh-tool", "--token", pass)
	pass = g.password()
	flag("htpasswd -b", pass, "htpasswd", "-bB", ".htpasswd", "admin", pass)
	pass = g.password()
	flag("htpasswd -nb", pass, "htpasswd", "-nb", "admin", pass)
	pass = g.pick(alnum, 32)
	flag("-H authorization", pass, "curl", "-H", "Authorization: token "+pass, "https://api.github.com")
	// A token in colour, as a tool prints it.
	colour := p("gh", "p_") + g.pick(alnum, 36)
	cs = append(cs, Case{Name: "token in colour codes", Secret: colour, Text: "your token: \x1b[1m" + colour + "\x1b[0m"})
	colour2 := p("sk", "_live_") + g.pick(alnum, 24)
	cs = append(cs, Case{Name: "stripe key in colour", Secret: colour2, Text: "\x1b[32m" + colour2 + "\x1b[39m created"})
	return cs
}

// shellJoin quotes argv the simple way a person would type it.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsAny(a, " '\"$&|;<>!#*()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
