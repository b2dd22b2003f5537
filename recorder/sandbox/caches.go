package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// toolCache is a build or package cache that a tool writes on every run.
type toolCache struct {
	dir   string
	why   string
	tools []string // the commands that use it; the folder is created when one is installed
	path  string   // PATH to look for them on
}

// installed reports whether one of the cache's tools is on PATH.
func (c toolCache) installed() bool {
	for _, dir := range filepath.SplitList(c.path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, t := range c.tools {
			if fi, err := os.Stat(filepath.Join(dir, t)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return true
			}
		}
	}
	return false
}

// toolCaches finds the caches of Go, npm, pnpm, yarn, cargo, pip, Gradle
// and Maven the way each tool does: its own variable, its own settings
// file, then its default. Only caches are listed, never the folders from
// which a tool runs programs (GOPATH/bin, ~/.cargo/bin, pnpm's global bin)
// or reads its configuration, so that nothing planted there runs later
// outside the sandbox.
func toolCaches(home string, getenv func(string) string) []toolCache {
	path := getenv("PATH")
	cacheHome := getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(cacheHome) {
		cacheHome = filepath.Join(home, ".cache")
	}
	dataHome := getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(dataHome) {
		dataHome = filepath.Join(home, ".local", "share")
	}
	var out []toolCache
	add := func(dir, why string, tools ...string) {
		if dir != "" && filepath.IsAbs(dir) {
			out = append(out, toolCache{dir: filepath.Clean(dir), why: why, tools: tools, path: path})
		}
	}

	goenv := goEnv(home, getenv)
	gocache := goenv("GOCACHE")
	if gocache == "" {
		gocache = filepath.Join(cacheHome, "go-build")
	}
	if gocache != "off" {
		add(gocache, "Go build cache (GOCACHE)", "go")
	}
	modcache := goenv("GOMODCACHE")
	if modcache == "" {
		gopath := goenv("GOPATH")
		if gopath == "" {
			gopath = filepath.Join(home, "go")
		}
		if first := filepath.SplitList(gopath); len(first) > 0 {
			modcache = filepath.Join(first[0], "pkg", "mod")
		}
	}
	add(modcache, "Go module cache (GOMODCACHE)", "go")

	npm := firstSet(getenv, "npm_config_cache", "NPM_CONFIG_CACHE")
	if npm == "" {
		npm = rcValue(filepath.Join(home, ".npmrc"), "cache")
	}
	if npm == "" {
		npm = filepath.Join(home, ".npm")
	}
	add(expandPath(npm, home, home), "npm cache", "npm", "npx")
	pnpm := firstSet(getenv, "npm_config_store_dir", "PNPM_STORE_DIR")
	if pnpm == "" {
		pnpm = filepath.Join(dataHome, "pnpm", "store")
	}
	add(pnpm, "pnpm store", "pnpm")
	add(filepath.Join(cacheHome, "pnpm"), "pnpm cache", "pnpm")
	yarn := getenv("YARN_CACHE_FOLDER")
	if yarn == "" {
		yarn = filepath.Join(cacheHome, "yarn")
	}
	add(yarn, "yarn cache", "yarn")
	add(filepath.Join(home, ".yarn", "berry", "cache"), "yarn berry cache", "yarn")

	cargo := getenv("CARGO_HOME")
	if cargo == "" {
		cargo = filepath.Join(home, ".cargo")
	}
	add(filepath.Join(cargo, "registry"), "cargo registry", "cargo")
	add(filepath.Join(cargo, "git"), "cargo git checkouts", "cargo")

	pip := getenv("PIP_CACHE_DIR")
	if pip == "" {
		pip = filepath.Join(cacheHome, "pip")
	}
	add(pip, "pip cache", "pip", "pip3")

	gradle := getenv("GRADLE_USER_HOME")
	if gradle == "" {
		gradle = filepath.Join(home, ".gradle")
	}
	for _, d := range []string{"caches", "wrapper", "daemon", "native", ".tmp"} {
		add(filepath.Join(gradle, d), "Gradle "+strings.TrimPrefix(d, "."), "gradle")
	}
	add(filepath.Join(home, ".m2", "repository"), "Maven repository", "mvn")
	return out
}

// goEnv reads a Go setting the way `go env` does, without running it: the
// environment first, then the go env file ($GOENV, else
// $XDG_CONFIG_HOME/go/env or ~/.config/go/env) that `go env -w` writes.
func goEnv(home string, getenv func(string) string) func(string) string {
	var file map[string]string
	return func(key string) string {
		if v := getenv(key); v != "" {
			return v
		}
		if file == nil {
			file = map[string]string{}
			name := getenv("GOENV")
			if name == "" {
				cfg := getenv("XDG_CONFIG_HOME")
				if !filepath.IsAbs(cfg) {
					cfg = filepath.Join(home, ".config")
				}
				name = filepath.Join(cfg, "go", "env")
			}
			if name != "off" {
				readKeyValues(name, file)
			}
		}
		return file[key]
	}
}

// readKeyValues reads KEY=VALUE lines (the go env file's format) into m.
func readKeyValues(name string, m map[string]string) {
	f, err := os.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && k != "" && !strings.HasPrefix(k, "#") {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
}

// rcValue reads one key of an ini-style file such as ~/.npmrc.
func rcValue(name, key string) string {
	m := map[string]string{}
	readKeyValues(name, m)
	return m[key]
}

func firstSet(getenv func(string) string, keys ...string) string {
	for _, k := range keys {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return ""
}
