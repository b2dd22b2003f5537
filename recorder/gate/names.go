package gate

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds what the gate knows about names and values that only
// exist at run time: secret variables of many spellings, environment
// reads the gate cannot see (a jq program in a file, a nameref), and file
// names listed or built by the command line itself.

// secretVarSpelling reports variable names, upper-cased, that hold
// credentials under spellings secretVar's words miss: *_PWD (MYSQL_PWD;
// PWD and OLDPWD are directories), *_JWT, passphrases, and the URLs of
// data stores and brokers, which carry a user and a password
// (redis://:pw@host, amqp://user:pw@host). Other URLs (API_URL, BASE_URL)
// and proxies are left alone.
func secretVarSpelling(u string) bool {
	switch u {
	case "PWD", "OLDPWD":
		return false
	}
	if strings.HasSuffix(u, "_PWD") || strings.Contains(u, "JWT") || strings.Contains(u, "PASSPHRASE") ||
		strings.Contains(u, "CONNECTION_STRING") || strings.Contains(u, "CONN_STR") {
		return true
	}
	if !strings.HasSuffix(u, "_URL") && !strings.HasSuffix(u, "_URI") && !strings.HasSuffix(u, "_URLS") {
		return false
	}
	for _, w := range [...]string{"REDIS", "MONGO", "POSTGRES", "PG", "MYSQL", "MARIADB", "DB", "DATABASE", "SQL", "AMQP",
		"RABBIT", "BROKER", "CACHE", "ELASTIC", "OPENSEARCH", "KAFKA", "NATS", "SMTP", "MAIL", "MEMCACHE", "CLICKHOUSE",
		"NEO4J", "CASSANDRA", "COUCH", "INFLUX", "CELERY", "QUEUE", "MQ", "LDAP", "FTP", "SFTP", "DSN"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// jqPrograms reports the jq family: programs whose first operand is a jq
// program, which can read the environment ($ENV, env).
func jqProgram(name string) bool {
	switch name {
	case "jq", "gojq", "jaq", "yq", "xq", "tomlq", "jqp", "gojq-yaml":
		return true
	}
	return false
}

// jqModule finds jq's import and include directives, which load a module
// the gate does not see.
var jqModule = regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(import|include)\s*"`)

// yqEnv finds yq's environment operators: env(NAME), strenv(NAME) and
// envsubst.
var yqEnv = regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(str)?env\s*\(|envsubst`)

// programEnv says why a jq-like program may read the environment, or "":
// its program text reads it ($ENV, env, yq's env(NAME)), or the program
// comes from somewhere the gate does not look (-f FILE, a module search
// path given with -L, an import or include directive).
func (c *call) programEnv() string {
	if !jqProgram(c.name) {
		return ""
	}
	yq := c.name == "yq" || c.name == "xq" || c.name == "tomlq"
	for _, x := range c.args {
		v := x.val
		switch {
		case v == "--":
			return ""
		case strings.Contains(v, "$ENV") || jqEnv.MatchString(v) || yqEnv.MatchString(v):
			return c.name + " reads the environment ($ENV, env)"
		case v == "--from-file" || strings.HasPrefix(v, "--from-file="):
			return c.name + " " + v + " runs a program from a file, which the gate does not read: it may print the environment"
		case v == "--library-path" || strings.HasPrefix(v, "--library-path=") || strings.HasPrefix(v, "-L"):
			return c.name + " " + v + " loads modules the gate does not read: they may print the environment"
		case jqModule.MatchString(v):
			return c.name + " loads a module the gate does not read (import, include): it may print the environment"
		case !yq && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v, 'f') > 0:
			return c.name + " " + v + " runs a program from a file, which the gate does not read: it may print the environment"
		}
	}
	return ""
}

// namerefs records the variables that a declaration makes references to
// other variables (declare -n r=NAME, local -n, typeset -n): expanding r
// expands the variable it names, a secret one's value when NAME holds a
// secret or is only known at run time (or set later: declare -n r;
// r=NAME).
func (c *collector) namerefs(d *syntax.DeclClause) {
	ref := false
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			if v := as.Value.Lit(); len(v) > 1 && v[0] == '-' && strings.IndexByte(v, 'n') > 0 {
				ref = true
			}
		}
	}
	if !ref {
		return
	}
	for _, as := range d.Args {
		if as.Name == nil {
			continue
		}
		target, static := "", true
		if as.Value != nil {
			target, static = literalText(c.src, as.Value)
		}
		if static && target != "" && !secretVar(target) {
			continue // a reference to a variable that holds no secret
		}
		if c.refs == nil {
			c.refs = map[string]string{}
		}
		if target == "" || !static {
			target = "a variable named at run time"
		}
		c.refs[as.Name.Value] = target
	}
}

// refExpansion says why expanding pe reads a secret through a nameref
// made earlier in the script, or "".
func (c *collector) refExpansion(pe *syntax.ParamExp) string {
	if pe.Param == nil || c.refs == nil || pe.Length || pe.Width || pe.Excl {
		return ""
	}
	target, ok := c.refs[pe.Param.Value]
	if !ok || pe.Exp != nil && (pe.Exp.Op == syntax.AlternateUnset || pe.Exp.Op == syntax.AlternateUnsetOrNull) {
		return ""
	}
	return secretPrefix + "$" + pe.Param.Value + " is a reference (declare -n) to " + target + ", which holds a secret that the command gets"
}
