package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONRedactsStringsAndSecretKeys(t *testing.T) {
	r := MustNew(Options{})
	cases := []struct{ name, in, want string }{
		{
			"keeps key order and layout",
			`{"z": 1, "command": "curl -H 'Authorization: Bearer abcdefgh123'",  "a": [true, null, 2.50e3]}`,
			`{"z": 1, "command": "curl -H 'Authorization: Bearer [REDACTED]'",  "a": [true, null, 2.50e3]}`,
		},
		{
			"secret keys lose their whole value",
			`{"password":"correct horse","API_KEY":"abc","accessToken":"t","Authorization":"Basic dXNlcg==","auth":"dXNlcjpwYXNz"}`,
			`{"password":"[REDACTED]","API_KEY":"[REDACTED]","accessToken":"[REDACTED]","Authorization":"[REDACTED]","auth":"[REDACTED]"}`,
		},
		{
			"numbers under secret keys, counters untouched",
			`{"pin_password":123456,"usage":{"input_tokens":120,"output_tokens":7},"token":""}`,
			`{"pin_password":"[REDACTED]","usage":{"input_tokens":120,"output_tokens":7},"token":""}`,
		},
		{
			"arrays under secret keys",
			`{"client_secret":["a","b",3],"names":["x"]}`,
			`{"client_secret":["[REDACTED]","[REDACTED]","[REDACTED]"],"names":["x"]}`,
		},
		{
			"nested objects and environment maps",
			`{"environment":{"PATH":"/usr/bin","GITHUB_TOKEN":"ghp_x","URL":"https://u:pw@h"},"stdout":"export SECRET=1\n"}`,
			`{"environment":{"PATH":"/usr/bin","GITHUB_TOKEN":"[REDACTED]","URL":"https://u:[REDACTED]@h"},"stdout":"export SECRET=[REDACTED]\n"}`,
		},
		{
			"escapes decoded before matching and re-encoded after",
			`{"out":"line\n\u0050ASSWORD=\"a b\"\t<tag> \u00e9\ud83d\ude00"}`,
			`{"out":"line\nPASSWORD=\"[REDACTED]\"\t<tag> é😀"}`,
		},
		{
			"private key in a string",
			`{"text":"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"}`,
			`{"text":"-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----"}`,
		},
		{"top-level string", `"TOKEN=abc"`, `"TOKEN=[REDACTED]"`},
		{
			"pass and pwd as segments, secret suffixes",
			`{"DB_PASS":"a","mysqlPwd":"b","smtp.pass":"c","SECRET_KEY_BASE":"d","API_TOKEN_B64":"e","PWD":"/home/x","pass":3,"bypass":"f","compass":"north"}`,
			`{"DB_PASS":"[REDACTED]","mysqlPwd":"[REDACTED]","smtp.pass":"[REDACTED]","SECRET_KEY_BASE":"[REDACTED]","API_TOKEN_B64":"[REDACTED]","PWD":"/home/x","pass":3,"bypass":"f","compass":"north"}`,
		},
		{
			"argv: a flag and its value in two elements",
			`{"argv":["docker","login","-u","ci","-p","pw-1234","reg"],"x":["sshpass","-p","pw-5678","ssh"]}`,
			`{"argv":["docker","login","-u","ci","-p","[REDACTED]","reg"],"x":["sshpass","-p","[REDACTED]","ssh"]}`,
		},
		{"already redacted", `{"password":"[REDACTED]"}`, `{"password":"[REDACTED]"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := r.JSON([]byte(c.in))
			if err != nil {
				t.Fatalf("JSON(%s): %v", c.in, err)
			}
			if string(got) != c.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", c.in, got, c.want)
			}
			if !json.Valid(got) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestJSONUnchangedReturnsInput(t *testing.T) {
	r := MustNew(Options{})
	in := []byte(`{"a":"plain text","n":[1,2,3]}`)
	got, err := r.JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &in[0] {
		t.Error("JSON copied input that needed no redaction")
	}
}

func TestJSONInvalid(t *testing.T) {
	r := MustNew(Options{})
	for in, want := range map[string]string{
		`{"a":`:          "redact JSON: invalid JSON at byte 5: unexpected end of JSON input",
		`{"a" 1}`:        "redact JSON: invalid JSON at byte 6: invalid character '1' after object key",
		`[1,2] trailing`: "redact JSON: invalid JSON at byte 7: invalid character 't' after top-level value",
		``:               "redact JSON: invalid JSON at byte 0: unexpected end of JSON input",
	} {
		_, err := r.JSON([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("JSON(%q): got %v, want %s", in, err, want)
		}
	}
}

func TestSecretKey(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "DB_PASSWORD": true, "passwd": true, "api_key": true, "apiKey": true,
		"x-api-key": true, "accessToken": true, "refresh_token": true, "client_secret": true,
		"Authorization": true, "Proxy-Authorization": true, "auth": true, "cookie": true,
		"aws_secret_access_key": true, "private_key": true, "credentials": true,
		"input_tokens": false, "max_tokens": false, "token_count": false, "session_id": false,
		"author": false, "oauth_provider": false, "key": false, "keys": false, "secrets_dir": false,
	} {
		if got := SecretKey(name); got != want {
			t.Errorf("SecretKey(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestJSONDisabled(t *testing.T) {
	r := MustNew(Options{Disabled: true})
	in := `{"password":"x"}`
	got, err := r.JSON([]byte(in))
	if err != nil || string(got) != in {
		t.Errorf("disabled: got %s, %v", got, err)
	}
	if _, err := r.JSON([]byte(`{`)); err == nil {
		t.Error("disabled redactor accepted invalid JSON")
	}
}

func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{
		`""`, `"abc"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, "\"\xff\xfe\"", `"` + strings.Repeat(`x\n`, 100) + `"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if got := decodeString([]byte(lit)); got != want {
			t.Errorf("decodeString(%s) = %q, want %q", lit, got, want)
		}
	}
}

func FuzzValidJSONNeverPanics(f *testing.F) {
	f.Add([]byte(`{"password":"x","a":[1,"sk-abcdefghijklmnopqrstuvwx"]}`))
	f.Add([]byte(`{"a":"\u00`))
	f.Add([]byte(`[[[[`))
	r := MustNew(Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		out := r.ValidJSON(data)
		if json.Valid(data) {
			want, err := r.JSON(data)
			if err != nil || string(want) != string(out) {
				t.Fatalf("ValidJSON differs from JSON on valid input: %q vs %q (%v)", out, want, err)
			}
		}
	})
}

// TestJSONSecretRepeatedWithoutItsContext: a secret recognised by its
// context in one string (a private key's lines between BEGIN and END, a
// password after -p) is also replaced where another string of the same
// value repeats it without that context, whole or in pieces, in any case:
// the gate's reasons quote words of the command (a key's first line was
// recorded as "decided by: MIIEow…"). Strings that repeat nothing stay.
func TestJSONSecretRepeatedWithoutItsContext(t *testing.T) {
	r := MustNew(Options{})
	line1 := "MIIEowIBAAKCAQEAx4Ue9Tq2Zr/Wq8sLk3vYp0NfUjHbXcA1dE7gRtKm5iOlPqS"
	key := "-----BEGIN RSA " + "PRIVATE KEY-----\n" + line1 + "\nAbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijklmnopqrstuvwx\n-----END RSA " + "PRIVATE KEY-----"
	in, _ := json.Marshal(map[string]any{
		"command": key,
		"verdict": map[string]any{"reasons": []string{"decided by: " + line1, "path " + strings.ToLower(line1[21:]) + " is outside"}},
		"argv":    []string{"mysql", "-pHunter2Hunter2", "db"},
		"note":    "the password was Hunter2Hunter2; the build is fine",
		"title":   "an ordinary title",
		"config":  "password: required",
		"stdout":  "the field is required",
	})
	out := string(r.ValidJSON(in))
	for _, leak := range []string{line1, line1[:30], strings.ToLower(line1[21:]), "Hunter2Hunter2"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q is left in %s", leak, out)
		}
	}
	for _, kept := range []string{"decided by: ", "an ordinary title", "the build is fine", "is outside", "the field is required"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q went too: %s", kept, out)
		}
	}
	if !json.Valid([]byte(out)) {
		t.Errorf("invalid JSON: %s", out)
	}
}
