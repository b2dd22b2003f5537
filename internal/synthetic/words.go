package synthetic

// words is the vocabulary the generated prose and code draw from: the
// words of everyday programming talk, so that a search index sees a
// realistic spread of common and rare terms.
var words = []string{
	"the", "a", "to", "of", "and", "in", "is", "it", "that", "for", "this", "with", "on", "as", "be",
	"we", "now", "then", "first", "next", "let", "me", "check", "look", "run", "test", "tests", "read",
	"file", "files", "function", "method", "package", "module", "import", "error", "errors", "fail",
	"failed", "failing", "pass", "passes", "build", "compile", "compiler", "type", "types", "value",
	"values", "return", "returns", "nil", "null", "string", "strings", "bytes", "buffer", "slice", "map",
	"struct", "interface", "pointer", "context", "cancel", "timeout", "deadline", "goroutine", "channel",
	"mutex", "lock", "race", "condition", "handler", "request", "response", "server", "client", "route",
	"router", "middleware", "database", "query", "queries", "table", "index", "schema", "migration",
	"transaction", "commit", "rollback", "cache", "cached", "stale", "refresh", "token", "session",
	"user", "users", "account", "login", "logout", "password", "config", "configuration", "setting",
	"settings", "option", "options", "flag", "flags", "command", "commands", "output", "input", "log",
	"logs", "logger", "debug", "trace", "metric", "metrics", "latency", "throughput", "memory", "cpu",
	"disk", "network", "socket", "port", "address", "host", "path", "directory", "folder", "symlink",
	"permission", "denied", "allowed", "policy", "rule", "rules", "gate", "approve", "approval", "deny",
	"parser", "parse", "lexer", "token", "tokens", "syntax", "tree", "node", "nodes", "graph", "edge",
	"loop", "iterator", "range", "offset", "length", "size", "limit", "bound", "bounds", "overflow",
	"panic", "recover", "defer", "close", "open", "write", "writer", "reader", "stream", "decode",
	"encode", "json", "yaml", "toml", "csv", "html", "markdown", "render", "view", "model", "update",
	"component", "button", "dialog", "prompt", "screen", "terminal", "window", "width", "height",
	"refactor", "rename", "extract", "inline", "move", "split", "merge", "rebase", "branch", "main",
	"release", "version", "changelog", "dependency", "dependencies", "vendor", "upgrade", "downgrade",
	"benchmark", "profile", "allocation", "allocations", "garbage", "collector", "heap", "stack",
	"frame", "frames", "retry", "backoff", "jitter", "queue", "worker", "workers", "pool", "batch",
	"flush", "sync", "async", "await", "promise", "callback", "event", "events", "listener", "emit",
	"signal", "process", "exit", "code", "status", "ok", "fine", "works", "broken", "fix", "fixed",
	"bug", "issue", "regression", "coverage", "assert", "expect", "mock", "stub", "fixture", "golden",
	"snapshot", "fuzz", "corpus", "seed", "random", "deterministic", "flaky", "stable", "order",
	"sort", "filter", "search", "match", "pattern", "regex", "glob", "wildcard", "escape", "quote",
	"unicode", "utf8", "rune", "width", "wrap", "truncate", "pad", "align", "column", "row", "cell",
	"header", "footer", "title", "summary", "detail", "details", "list", "item", "items", "entry",
	"entries", "record", "records", "recording", "transcript", "agent", "agents", "tool", "tools",
	"because", "since", "so", "but", "however", "instead", "also", "still", "only", "every", "each",
	"should", "would", "could", "might", "must", "need", "needs", "want", "try", "tried", "see",
	"seems", "looks", "like", "good", "better", "best", "wrong", "right", "correct", "expected",
	"actual", "unexpected", "missing", "found", "not", "no", "yes", "done", "ready", "here", "there",
}

// identifiers are names that appear in code and paths.
var identifiers = []string{
	"Store", "Session", "Reader", "Writer", "Handler", "Server", "Client", "Config", "Options", "Parser",
	"Decoder", "Encoder", "Index", "Cache", "Queue", "Worker", "Router", "Request", "Response", "Result",
	"Event", "Record", "Policy", "Gate", "Approval", "Timeline", "Feed", "Browser", "Viewer", "Export",
	"Import", "Runner", "Command", "Capture", "Limit", "Budget", "Stats", "Metrics", "Health", "Token",
}

var extensions = []string{".go", ".go", ".go", ".ts", ".py", ".md", ".yml", ".json", ".sql", ".sh"}

var dirs = []string{"internal", "cmd", "pkg", "api", "web", "server", "client", "store", "util", "lib", "src", "docs", "scripts", "test"}

var models = []string{"claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001"}

var bashCommands = []string{
	"go test ./...", "go build ./...", "go vet ./...", "git status", "git diff", "git log --oneline -20",
	"ls -la", "make test", "npm test", "npm run build", "pytest -q", "cargo test", "git add -A && git commit -m 'wip'",
	"rg -n TODO", "grep -rn func .", "cat go.mod", "docker compose up -d", "curl -s localhost:8080/health",
	"go test -run TestStore ./internal/store/", "go test -race ./...", "golangci-lint run", "find . -name '*.go' | wc -l",
}
