package agenttest

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cuff-dev/cuff/internal/testenv"
)

//go:embed versions.txt
var versionsTxt string

// Agent names, as in versions.txt and .ci/agents.
const (
	Claude = "claude"
	Codex  = "codex"
)

// config is how the suite was started: read once by Main, before the
// environment is scrubbed.
type config struct {
	latest bool   // CUFF_E2E_AGENTS=latest
	cache  string // CUFF_E2E_CACHE or ~/.cache/cuff-e2e
	root   string // the module's root (where .ci/agents is)
	cuff   string // the directory holding the built cuff and cuff-tui
}

var (
	cfg     config
	cfgOnce sync.Once

	installMu  sync.Mutex
	installErr = map[string]error{} // per agent: the outcome of the one install tried
)

// Main runs a test binary that uses the real agents: it reads the suite's
// switches (CUFF_E2E_AGENTS, CUFF_E2E_CACHE), removes the tester's own
// cuff / Claude Code / Codex set-up from the environment (testenv.Scrub),
// builds cuff and cuff-tui once, runs the tests and removes the build.
// Call it from TestMain: func TestMain(m *testing.M) { agenttest.Main(m) }.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	cfgOnce.Do(readConfig)
	testenv.Scrub()
	dir, err := os.MkdirTemp("", "cuff-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, b := range []string{"cuff", "cuff-tui"} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, b), "./cmd/"+b)
		build.Dir = cfg.root
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "agenttest: build", b, err)
			return 1
		}
	}
	cfg.cuff = dir
	return m.Run()
}

func readConfig() {
	cfg.latest = os.Getenv("CUFF_E2E_AGENTS") == "latest"
	cfg.cache = os.Getenv("CUFF_E2E_CACHE")
	if cfg.cache == "" {
		home, _ := os.UserHomeDir()
		cfg.cache = filepath.Join(home, ".cache", "cuff-e2e")
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			cfg.root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
}

// CuffBin is the path of the cuff binary built by Main (cuff-tui is
// beside it).
func CuffBin(t testing.TB) string {
	t.Helper()
	if cfg.cuff == "" {
		t.Fatal("agenttest: call agenttest.Main from TestMain to build cuff")
	}
	return filepath.Join(cfg.cuff, "cuff")
}

// Version is the version of an agent the suite runs: the pinned one, or
// "latest" under CUFF_E2E_AGENTS=latest.
func Version(agent string) string {
	if cfg.latest {
		return "latest"
	}
	sc := bufio.NewScanner(strings.NewReader(versionsTxt))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == agent {
			return f[2]
		}
	}
	return ""
}

// Bin is the native binary of agent ("claude" or "codex") at the version
// the suite runs. A missing agent is installed with .ci/agents (npm, into
// the cache); when that cannot be done the test is skipped, saying why.
func Bin(t testing.TB, agent string) string {
	t.Helper()
	cfgOnce.Do(readConfig)
	version := Version(agent)
	if version == "" {
		t.Fatalf("agenttest: no version of %q in versions.txt", agent)
	}
	path := filepath.Join(cfg.cache, agent+"@"+version, agent)
	if works(path) && !cfg.latest {
		return path
	}
	installMu.Lock()
	defer installMu.Unlock()
	err, tried := installErr[agent]
	if !tried && (cfg.latest || !works(path)) {
		// "latest" asks npm once per test binary which version is newest.
		err = install()
		installErr[agent] = err
	}
	if works(path) {
		return path
	}
	if err == nil {
		err = fmt.Errorf(".ci/agents ran but %s is not there", path)
	}
	t.Skipf("SKIP: the real %s %s is not installed and could not be (is npm reachable?): %v", agent, version, err)
	return ""
}

// works reports whether the agent binary at path is there and executable.
func works(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// install runs .ci/agents for the versions the suite runs.
func install() error {
	script := filepath.Join(cfg.root, ".ci", "agents")
	args := []string{}
	if cfg.latest {
		args = append(args, "latest")
	}
	cmd := exec.Command(script, args...)
	cmd.Dir = cfg.root
	cmd.Env = append(os.Environ(), "CUFF_E2E_CACHE="+cfg.cache)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v: %s", script, err, strings.TrimSpace(out.String()))
	}
	return nil
}
