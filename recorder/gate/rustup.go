package gate

import (
	"os"
	"strings"
)

// rustupProxy reports the programs rustup installs as proxies: each runs
// the same-named program of the toolchain that applies in the working
// directory.
func rustupProxy(name string) bool {
	switch name {
	case "cargo", "rustc", "rustdoc", "rustfmt", "rustup", "cargo-fmt", "cargo-clippy", "clippy-driver",
		"rust-analyzer", "rust-gdb", "rust-gdbgui", "rust-lldb", "cargo-miri", "rls":
		return true
	}
	return false
}

// rustupToolchainCode says why a rustup proxy runs a program the agent
// may have written, or "": a rust-toolchain.toml (or the legacy
// rust-toolchain) in the working directory or a parent can name a
// toolchain by path (path = "/work/tree/tc"), and then even cargo
// --version runs tc/bin/cargo; so can cargo +/path. A file that holds no
// path names a channel, which rustup checks.
func (c *call) rustupToolchainCode() string {
	if !rustupProxy(c.name) {
		return ""
	}
	if len(c.args) > 0 && strings.HasPrefix(c.args[0].val, "+") && (strings.ContainsAny(c.args[0].val, `/\`) || c.args[0].dyn) {
		return c.name + " " + c.args[0].val + " runs a toolchain from a folder, which may be the agent's"
	}
	dir := c.a.cwdReal()
	if dir == "" {
		dir = c.a.g.root
	}
	for _, name := range [...]string{"rust-toolchain.toml", "rust-toolchain"} {
		file, size := c.a.findUp(dir, name)
		if file == "" {
			continue
		}
		if size > 64<<10 {
			return file + " is too large to read: it may name a toolchain by path, whose programs " + c.name + " runs"
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return file + " cannot be read: it may name a toolchain by path, whose programs " + c.name + " runs"
		}
		if toolchainByPath(string(b), name == "rust-toolchain") {
			return file + " names a toolchain by path, whose programs " + c.name + " runs: the agent may have written them"
		}
		return "" // rustup reads the nearest file only
	}
	return ""
}

// toolchainByPath reports toolchain file text that may name a toolchain by
// its folder: a path key, or in the legacy one-line format a name that
// holds a slash.
func toolchainByPath(text string, legacy bool) bool {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if k, _, ok := strings.Cut(line, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == "path" {
			return true
		}
		if strings.Contains(line, "path") && strings.Contains(line, "{") {
			return true // toolchain = { path = ... }, an inline table
		}
	}
	return legacy && !strings.Contains(text, "[") && strings.ContainsAny(text, `/\`)
}
