package redact

import "strings"

// Locators: given a trigger found at s[pos:end], each returns where a
// match of its rule must start, or -1 when no match can contain the
// trigger. They are cheap necessary conditions, so ordinary text such as
// "Tokenizer" or "sort key order" never reaches a regular expression.

// locateAssignment: the keyword ends a key (letters, digits, '_', '.', '-')
// that is followed by an optional closing quote, blanks and '=' or ':',
// and that is not part of a path such as /etc/passwd. A secret word may be
// followed by a suffix that still names the secret (SECRET_KEY_BASE). The
// short words pass and pwd count only as a segment of their own (DB_PASS,
// not bypass), and not as the shell's PWD= nor as a test's PASS:.
func locateAssignment(s string, pos, end int) int {
	short := end-pos <= 4 && (strings.EqualFold(s[pos:end], "pass") || strings.EqualFold(s[pos:end], "pwd"))
	if !short {
		end = skipSecretSuffix(s, end)
	} else if end < len(s) && isKeyChar(s[end]) {
		return -1
	}
	i := end
	if i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	i = skipBlanks(s, i)
	if i >= len(s) || (s[i] != '=' && s[i] != ':') {
		return -1
	}
	start := walkBack(s, pos, isKeyChar)
	if start > 0 && (s[start-1] == '/' || s[start-1] == '\\') {
		return -1
	}
	if short {
		switch {
		case pos > start && !strings.ContainsRune("_.-", rune(s[pos-1])) && !(isLower(s[pos-1]) && s[pos] >= 'A' && s[pos] <= 'Z'):
			return -1 // bypass, compass (but dbPass, DB_PASS)
		case pos == start && s[i] == '=' && (strings.EqualFold(s[pos:end], "pwd")):
			return -1 // the shell's working directory
		case pos == start && s[i] == ':' && strings.EqualFold(s[pos:end], "pass"):
			return -1 // --- PASS: TestX
		case pos-start == 3 && strings.EqualFold(s[start:end], "oldpwd"):
			return -1
		}
	}
	return start
}

// skipSecretSuffix returns where a key ends that a secret word ending at
// end may continue with (SECRET_KEY_BASE, TOKEN_B64), or end.
func skipSecretSuffix(s string, end int) int {
	if end >= len(s) || !strings.ContainsRune("_.-", rune(s[end])) {
		return end
	}
	j := end + 1
	for j < len(s) && (isLetter(s[j]) || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	switch w := strings.ToLower(s[end+1 : j]); {
	case w == "base", w == "base64", w == "b64", w == "hex", w == "value", w == "raw", w == "data", w == "string", w == "str",
		len(w) >= 2 && w[0] == 'v' && allDigits(w[1:]):
		return j
	}
	return end
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// locateEnvKey: an upper-case NAME_KEY= starting a word.
func locateEnvKey(s string, pos, end int) int {
	if s[pos:end] != "_KEY=" {
		return -1
	}
	start := walkBack(s, pos, func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' })
	if start == pos || (start > 0 && isWordChar(s[start-1])) {
		return -1
	}
	return start
}

// locateFlag: the keyword ends a word that starts with '-' after a blank,
// quote or '=' and is followed by a blank.
func locateFlag(s string, pos, end int) int {
	if end >= len(s) || (s[end] != ' ' && s[end] != '\t') {
		return -1
	}
	start := walkBack(s, pos, isFlagChar)
	if start == pos || s[start] != '-' {
		return -1
	}
	if start > 0 && !strings.ContainsRune(" \t\r\n\"'=", rune(s[start-1])) {
		return -1
	}
	return start
}

// locateXML: the keyword ends an element name: <…password>.
func locateXML(s string, pos, end int) int {
	if end >= len(s) || s[end] != '>' {
		return -1
	}
	start := walkBack(s, pos, func(c byte) bool { return isFlagChar(c) || c == '.' || c == ':' })
	if start == 0 || s[start-1] != '<' {
		return -1
	}
	return start - 1
}

// locateBearer: "bearer" starting a word and followed by a blank, or by
// its URL-encoded forms (%20, +).
func locateBearer(s string, pos, end int) int {
	if end >= len(s) || (s[end] != ' ' && s[end] != '\t' && s[end] != '+' && !strings.HasPrefix(s[end:], "%20")) {
		return -1
	}
	return locateWord(anyCase)(s, pos, end)
}

// locateTelegram: ":AA" after the 8 to 10 digits of a bot's id.
func locateTelegram(s string, pos, end int) int {
	if s[pos+1:end] != "AA" {
		return -1
	}
	start := walkBack(s, pos, func(c byte) bool { return c >= '0' && c <= '9' })
	if pos-start < 8 || pos-start > 10 || !wordStart(s, start) {
		return -1
	}
	return start
}

// locateTerraform: ".atlasv1." after the 14 letters and digits of a
// Terraform Cloud token's id.
func locateTerraform(s string, pos, _ int) int {
	start := walkBack(s, pos, func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' })
	if pos-start != 14 {
		return -1
	}
	return start
}

// locateWord: the trigger starts a word (see wordStart) and its case
// passes ok.
func locateWord(ok func(string) bool) func(string, int, int) int {
	return func(s string, pos, end int) int {
		if !wordStart(s, pos) || !ok(s[pos:end]) {
			return -1
		}
		return pos
	}
}

// locateAt: the match starts at the trigger.
func locateAt(_ string, pos, _ int) int { return pos }

// locateAWSSecret: "aws" followed by an optional separator and "secret".
func locateAWSSecret(s string, pos, end int) int {
	i := end
	if i < len(s) && (s[i] == '_' || s[i] == '.' || s[i] == '-') {
		i++
	}
	if i+len("secret") > len(s) || !strings.EqualFold(s[i:i+len("secret")], "secret") {
		return -1
	}
	return pos
}

// locateStripe: "_live_" or "_test_" after a word-initial sk, rk or pk.
func locateStripe(s string, pos, end int) int {
	if pos < 2 || !isLowerWord(s[pos:end]) {
		return -1
	}
	switch s[pos-2 : pos] {
	case "sk", "rk", "pk":
		if wordStart(s, pos-2) {
			return pos - 2
		}
	}
	return -1
}

// locateURLCredentials: a scheme before "://" and an '@' after it before
// the host part ends.
func locateURLCredentials(s string, pos, end int) int {
	at := false
scan:
	for i := end; i < len(s) && i-end < windowForward; i++ {
		switch s[i] {
		case '@':
			at = true
			break scan
		case '/', '?', '#', ' ', '\t', '\r', '\n', '"', '\'', '<', '>', '\\':
			break scan
		}
	}
	if !at {
		return -1
	}
	start := walkBack(s, pos, func(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-' })
	for start < pos && !isLetter(s[start]) {
		start++
	}
	if start == pos {
		return -1
	}
	return start
}

// walkBack returns the start of the run of bytes accepted by in that ends
// at pos, looking back at most windowBack bytes.
func walkBack(s string, pos int, in func(byte) bool) int {
	j := pos
	for j > 0 && pos-j < windowBack && in(s[j-1]) {
		j--
	}
	return j
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func anyCase(string) bool { return true }

func exactly(lit string) func(string) bool { return func(t string) bool { return t == lit } }

func isLowerWord(t string) bool { return t == strings.ToLower(t) }

func isUpperWord(t string) bool { return t == strings.ToUpper(t) }

func isWordChar(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }

func isKeyChar(c byte) bool { return isWordChar(c) || c == '.' || c == '-' }

func isFlagChar(c byte) bool { return isWordChar(c) || c == '-' }
