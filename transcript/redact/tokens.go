package redact

import "strings"

// Character sets of token bodies.
const (
	setAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	setB64URL = setAlnum + "-_"
	setHex    = "0123456789abcdefABCDEF"
	setUpper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

// prefixed is a token format known by its prefix: the body after the
// prefix is at least min bytes of set. With bounded, the body must end at
// a byte that is not a word byte (a hex body inside a longer word is no
// token).
type prefixed struct {
	prefix  string // exact case
	set     string
	min     int
	bounded bool
}

// prefixedTokens are the providers' token formats that the other rules do
// not know, as their documentation and secret scanners describe them.
var prefixedTokens = []prefixed{
	{"glrt-", setB64URL, 20, false}, {"gldt-", setB64URL, 20, false}, {"glptt-", setB64URL, 20, false},
	{"glft-", setB64URL, 20, false}, {"glsoat-", setB64URL, 20, false}, {"glcbt-", setB64URL, 20, false},
	{"glimt-", setB64URL, 20, false}, {"gloas-", setB64URL, 20, false}, {"glagent-", setB64URL, 20, false},
	{"whsec_", setAlnum + "+/=", 24, false}, // Stripe webhook signing secret
	{"hf_", setAlnum, 30, false},            // Hugging Face
	{"GOCSPX-", setB64URL, 20, false},       // Google OAuth client secret
	{"ya29.", setB64URL + ".", 20, false},   // Google OAuth access token
	{"pypi-AgEI", setB64URL, 50, false},
	{"dop_v1_", setHex, 64, true}, {"doo_v1_", setHex, 64, true}, {"dor_v1_", setHex, 64, true}, // DigitalOcean
	{"shpat_", setHex, 32, true}, {"shpss_", setHex, 32, true}, {"shpca_", setHex, 32, true}, {"shppa_", setHex, 32, true}, // Shopify
	{"ATATT3", setB64URL + "=", 50, false},                                                                                                     // Atlassian
	{"lin_api_", setAlnum, 32, false},                                                                                                          // Linear
	{"dp.pt.", setAlnum, 40, false}, {"dp.st.", setAlnum + ".-_", 40, false}, {"dp.sa.", setAlnum, 40, false}, {"dp.ct.", setAlnum, 40, false}, // Doppler (a service token names its config: dp.st.dev.…)
	{"SK", setHex, 32, true},                                                                       // Twilio API key
	{"dapi", setHex, 32, true},                                                                     // Databricks
	{"hvs.", setB64URL, 24, false}, {"hvb.", setB64URL, 24, false}, {"hvr.", setB64URL, 24, false}, // Vault
	{"glsa_", setAlnum + "_", 32, false}, {"glc_", setB64URL + "=", 32, false}, // Grafana
	{"NRAK-", setUpper, 27, true},                                  // New Relic
	{"PMAK-", setAlnum + "-", 24, false},                           // Postman
	{"secret_", setAlnum, 40, true}, {"ntn_", setAlnum, 40, false}, // Notion
	{"sbp_", setHex, 40, true},                                                       // Supabase
	{"gsk_", setAlnum, 40, false},                                                    // Groq
	{"r8_", setAlnum, 30, false},                                                     // Replicate
	{"pplx-", setAlnum, 40, false},                                                   // Perplexity
	{"xai-", setAlnum, 40, false},                                                    // xAI
	{"pcsk_", setAlnum + "_", 40, false},                                             // Pinecone
	{"lsv2_pt_", setAlnum + "_", 32, false}, {"lsv2_sk_", setAlnum + "_", 32, false}, // LangSmith
	{"sgp_", setHex + "_", 40, false},         // Sourcegraph
	{"key-", setHex, 32, true},                // Mailgun
	{"SG.", setB64URL + ".", 60, false},       // SendGrid
	{"AGE-SECRET-KEY-1", setUpper, 50, false}, // age
}

// prefixedTriggers are the lower-case prefixes, one per trigger.
func prefixedTriggers() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range prefixedTokens {
		l := strings.ToLower(t.prefix)
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// matchPrefixed reports the token that starts at start (its prefix found
// there by a trigger) and returns where it ends, or -1.
func matchPrefixed(s string, start, stop int, add func(int, int)) int {
	best := -1
	for _, t := range prefixedTokens {
		if !strings.HasPrefix(s[start:stop], t.prefix) {
			continue
		}
		i := start + len(t.prefix)
		for i < stop && strings.IndexByte(t.set, s[i]) >= 0 {
			i++
		}
		if i-start-len(t.prefix) < t.min || t.bounded && i < stop && isWordChar(s[i]) {
			continue
		}
		best = max(best, i)
	}
	if best > 0 {
		add(start, best)
	}
	return best
}

// locatePrefixed: a prefix starts a word.
func locatePrefixed(s string, pos, _ int) int {
	if !wordStart(s, pos) {
		return -1
	}
	return pos
}

// matchUserFlag reports the password of -u/--user/-a/--auth user:password
// (curl, wget, httpie): the part after the first ':' of the value. A value
// of two numbers (docker run -u 1000:1000) is a user and group, no secret.
func matchUserFlag(s string, start, stop int, add func(int, int)) int {
	i := start
	for i < stop && s[i] == '-' {
		i++
	}
	for i < stop && isLetter(s[i]) {
		i++
	}
	j := i
	if j < stop && s[j] == '=' {
		j++
	} else {
		j = skipBlanks(s, j)
	}
	if j == i || j >= stop {
		return -1
	}
	vs, ve := valueAt(s, j, stop)
	colon := strings.IndexByte(s[vs:ve], ':')
	if colon <= 0 || vs+colon+1 >= ve {
		return -1
	}
	user, pass := s[vs:vs+colon], s[vs+colon+1:ve]
	if allDigits(user) && allDigits(pass) {
		return -1
	}
	add(vs+colon+1, ve)
	return ve
}

// locateUserFlag: --user or --auth as a word of its own, followed by a blank
// or '='; or -u followed by a blank on a line that fetches something (curl,
// wget, a URL): elsewhere -u is a user id (docker run -u 1000:1000) or
// takes no value (sort -u).
func locateUserFlag(s string, pos, end int) int {
	if pos > 0 && !strings.ContainsRune(" \t\"'", rune(s[pos-1])) {
		return -1
	}
	if end >= len(s) {
		return -1
	}
	switch {
	case s[end] == ' ' || s[end] == '\t':
	case s[end] == '=' && strings.HasPrefix(s[pos:], "--"):
	default:
		return -1
	}
	switch s[pos:end] {
	case "--user", "--auth":
		return pos
	case "-u":
		if line := lineBefore(s, pos) + lineAfter(s, end); hasWord(line, "curl") || hasWord(line, "wget") || strings.Contains(line, "://") {
			return pos
		}
	}
	return -1
}

// lineAfter is the part of s's line from pos on, at most windowForward bytes.
func lineAfter(s string, pos int) string {
	to := min(len(s), pos+windowForward)
	if nl := strings.IndexByte(s[pos:to], '\n'); nl >= 0 {
		to = pos + nl
	}
	return s[pos:to]
}

// matchShortPassword reports the password of -p: the next word after
// `-p ` (docker/podman/helm login, sshpass), or what follows -p in the same
// word (-pSECRET: mysql and its tools).
func matchShortPassword(s string, start, stop int, add func(int, int)) int {
	i := start + 2
	if i < stop && (s[i] == ' ' || s[i] == '\t') {
		i = skipBlanks(s, i)
	}
	if i >= stop {
		return -1
	}
	vs, ve := valueAt(s, i, stop)
	if vs >= ve {
		return -1
	}
	add(vs, ve)
	return ve
}

// locateShortPassword: -p as a word of its own followed by a value, on a
// line that runs a login (docker login, sshpass ...); or -pVALUE on a line
// that runs mysql or one of its tools, where -p takes the password.
func locateShortPassword(s string, pos, end int) int {
	if pos > 0 && !strings.ContainsRune(" \t\"'", rune(s[pos-1])) || end >= len(s) {
		return -1
	}
	before := lineBefore(s, pos)
	if s[end] == ' ' || s[end] == '\t' {
		if hasWord(before, "login") || hasWord(before, "sshpass") {
			return pos
		}
		return -1
	}
	if isBlankOrEnd(s[end]) || s[end] == '-' {
		return -1
	}
	for _, tool := range []string{"mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mariadb-dump"} {
		if hasWord(before, tool) {
			return pos
		}
	}
	return -1
}

// matchHtpasswd reports the password that htpasswd -b takes on its
// command line: its third operand (htpasswd -b FILE USER PASSWORD), or its
// second with -n (htpasswd -nb USER PASSWORD); -C and -r take a number
// first.
func matchHtpasswd(s string, start, stop int, add func(int, int)) int {
	batch, noFile := false, false
	var operands []span
	valued := false // the word before was -C or -r, whose value this is
	for i := skipBlanks(s, start+len("htpasswd")); i < stop && strings.IndexByte(";|&<>", s[i]) < 0; {
		vs, ve := valueAt(s, i, stop)
		if vs >= ve && (vs >= stop || s[vs] != '"' && s[vs] != '\'') {
			break
		}
		if vs == i { // unquoted: a shell operator ends it
			if k := strings.IndexAny(s[vs:ve], ";|&<>"); k >= 0 {
				ve = vs + k
			}
		}
		word := s[vs:ve]
		switch {
		case valued:
			valued = false
		case len(word) > 1 && word[0] == '-' && vs == i && len(operands) == 0:
			batch = batch || strings.Contains(word, "b")
			noFile = noFile || strings.Contains(word, "n")
			valued = strings.HasSuffix(word, "C") || strings.HasSuffix(word, "r")
		default:
			operands = append(operands, span{vs, ve})
		}
		if ve < stop && (s[ve] == '"' || s[ve] == '\'') {
			ve++ // past the closing quote
		}
		i = skipBlanks(s, ve)
	}
	want := 3
	if noFile {
		want = 2
	}
	if !batch || len(operands) < want || operands[want-1].start >= operands[want-1].end {
		return -1
	}
	pw := operands[want-1]
	add(pw.start, pw.end)
	return pw.end
}

// matchNetrcPassword reports the value after the word "password" in a
// .netrc entry (machine HOST login USER password PASS).
func matchNetrcPassword(s string, start, stop int, add func(int, int)) int {
	i := skipBlanks(s, start+len("password"))
	vs, ve := valueAt(s, i, stop)
	if vs >= ve {
		return -1
	}
	add(vs, ve)
	return ve
}

// locateNetrcPassword: "password" as a word, followed by a blank, on a line
// with "machine" or "login" before it.
func locateNetrcPassword(s string, pos, end int) int {
	if end >= len(s) || s[end] != ' ' && s[end] != '\t' || pos > 0 && isKeyChar(s[pos-1]) || s[pos:end] != "password" {
		return -1
	}
	before := lineBefore(s, pos)
	if hasWord(before, "machine") || hasWord(before, "login") {
		return pos
	}
	return -1
}

// matchKeywordHex reports a long hex value (32 or more hex digits, a word
// of its own) that follows a key-like word closely on its line: "the
// signing key is 9f86…", "webhook token 3c2a…". A hex run that long so
// near such a word is taken for the key.
func matchKeywordHex(s string, start, stop int, add func(int, int)) int {
	i := start
	for i < stop && isLetter(s[i]) {
		i++
	}
	limit := min(stop, i+keywordHexReach)
	for i < limit {
		if !isHexDigit(s[i]) || i > 0 && (isWordChar(s[i-1]) || strings.IndexByte("-./", s[i-1]) >= 0) {
			i++ // a run inside a word, a name or a path is not the key's value
			continue
		}
		j := i
		for j < stop && isHexDigit(s[j]) {
			j++
		}
		if j-i >= 32 && (j == stop || !isWordChar(s[j])) {
			add(i, j)
			return j
		}
		i = j
	}
	return -1
}

// keywordHexReach is how far after a key-like word its hex value may start.
const keywordHexReach = 24

// locateKeywordHex: key, token, secret, password or passphrase as a word
// (or the end of one joined by '_' or '-': signing_key).
func locateKeywordHex(s string, pos, end int) int {
	if pos > 0 && (isLetter(s[pos-1]) || s[pos-1] >= '0' && s[pos-1] <= '9') {
		return -1
	}
	if end < len(s) && isLetter(s[end]) && !(s[pos:end] == "key" && s[end] == 's') {
		return -1
	}
	return pos
}

// valueAt returns the value that starts at i: a quoted string's inside,
// or a run of bytes up to a blank or quote.
func valueAt(s string, i, stop int) (int, int) {
	if i < stop && (s[i] == '"' || s[i] == '\'') {
		q := s[i]
		j := strings.IndexByte(s[i+1:stop], q)
		if j < 0 {
			return i + 1, stop
		}
		return i + 1, i + 1 + j
	}
	j := i
	for j < stop && !strings.ContainsRune(" \t\r\n\"'", rune(s[j])) {
		j++
	}
	return i, j
}

// lineBefore is the part of s's line before pos, at most windowBack bytes.
func lineBefore(s string, pos int) string {
	from := max(0, pos-windowBack)
	if nl := strings.LastIndexByte(s[from:pos], '\n'); nl >= 0 {
		from += nl + 1
	}
	return s[from:pos]
}

// hasWord reports whether line holds w as a word (not part of a longer one).
func hasWord(line, w string) bool {
	for i := 0; ; {
		k := strings.Index(line[i:], w)
		if k < 0 {
			return false
		}
		a, b := i+k, i+k+len(w)
		if (a == 0 || !isKeyChar(line[a-1])) && (b == len(line) || !isKeyChar(line[b])) {
			return true
		}
		i = b
	}
}

// wordStart reports whether a token may start at pos: at the start of the
// text, after a byte that is no word byte, or right after a terminal
// escape sequence (ESC [ … m: a token printed in colour).
func wordStart(s string, pos int) bool {
	if pos == 0 || !isWordChar(s[pos-1]) {
		return true
	}
	return endsEscape(s, pos)
}

// endsEscape reports whether a CSI escape sequence (ESC [ params final)
// ends just before pos, its ESC a byte or written out as a shell or a
// program would quote it (\e, \E, \x1b, \033, \u001b: $'\e[1m…').
func endsEscape(s string, pos int) bool {
	i := pos - 1
	if !isLetter(s[i]) {
		return false
	}
	for i--; i >= 0 && pos-i < 32; i-- {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c == ';', c == ':', c == '?':
			continue
		case c == '[':
			before := s[:i]
			if strings.HasSuffix(before, `\x1b`) || strings.HasSuffix(before, `\x1B`) || strings.HasSuffix(before, `\033`) ||
				strings.HasSuffix(before, `\u001b`) || strings.HasSuffix(before, `\u001B`) {
				return true
			}
			return i > 0 && s[i-1] == 0x1b || i > 1 && s[i-2] == '\\' && (s[i-1] == 'e' || s[i-1] == 'E')
		}
		return false
	}
	return false
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isBlankOrEnd(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
