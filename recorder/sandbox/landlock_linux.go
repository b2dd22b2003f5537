//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Supported reports whether this platform has a sandbox implementation.
const Supported = true

// configs are the landlock library's rulesets by ABI.
var configs = [...]landlock.Config{1: landlock.V1, 2: landlock.V2, 3: landlock.V3, 4: landlock.V4,
	5: landlock.V5, 6: landlock.V6, 7: landlock.V7, 8: landlock.V8, 9: landlock.V9, 10: landlock.V10, 11: landlock.V11}

// kernelABI asks the kernel for its Landlock ABI version.
func kernelABI() (int, string) {
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case errors.Is(err, unix.EOPNOTSUPP):
		return 0, "Landlock is built into the kernel but switched off (add landlock to the lsm= boot parameter)"
	case err != nil:
		return 0, ""
	}
	return v, ""
}

// device is a file under /dev that ordinary programs open for writing.
type device struct {
	path  string
	dir   bool
	ioctl bool // terminals: programs ask them about their size and mode
}

var devices = []device{
	{path: "/dev/null"}, {path: "/dev/zero"}, {path: "/dev/full"}, {path: "/dev/random"}, {path: "/dev/urandom"},
	{path: "/dev/tty", ioctl: true}, {path: "/dev/ptmx", ioctl: true}, {path: "/dev/pts", dir: true, ioctl: true},
}

// rules are the Landlock rules of the policy for an ABI.
func (p *Policy) rules(abi int) []landlock.Rule {
	read := landlock.RODirs("/")
	if p.Net {
		read = read.WithResolveUnix()
	}
	rules := []landlock.Rule{read}
	var dirs, shared, files []string
	for _, g := range p.Writable {
		switch fi, err := os.Stat(g.Path); {
		case g.covered:
			// inside another grant, which the ruleset holds
		case err == nil && !fi.IsDir():
			files = append(files, g.Path)
		case g.Shared:
			shared = append(shared, g.Path)
		default:
			dirs = append(dirs, g.Path)
		}
	}
	if len(dirs) > 0 {
		// Renames and links between the writable folders (git's object
		// store, mv from the temporary directory) need "refer", which
		// ABI 1 cannot grant: there they fail with EXDEV.
		rw := landlock.RWDirs(dirs...).WithResolveUnix()
		if abi >= 2 {
			rw = rw.WithRefer()
		}
		rules = append(rules, rw)
	}
	if len(shared) > 0 {
		// Regular files and folders only: no link, socket, pipe or device
		// made, and without "refer" nothing moved in from elsewhere (a
		// folder holding a link, say).
		rights := landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir |
			llsys.AccessFSWriteFile | llsys.AccessFSTruncate | llsys.AccessFSMakeReg | llsys.AccessFSMakeDir |
			llsys.AccessFSRemoveFile | llsys.AccessFSRemoveDir)
		rules = append(rules, landlock.PathAccess(rights&p.config(abi).HandledAccessFS, shared...))
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...))
	}
	for _, d := range devices {
		r := landlock.RWFiles(d.path)
		if d.dir {
			r = landlock.RWDirs(d.path)
		}
		if d.ioctl {
			r = r.WithIoctlDev()
		}
		rules = append(rules, r.IgnoreIfMissing())
	}
	return rules
}

// config is the ruleset's shape for an ABI: every file access, TCP unless
// the network is open, and (ABI 6) signals to and abstract sockets of
// processes outside the sandbox.
func (p *Policy) config(abi int) landlock.Config {
	c := configs[abi]
	if p.Net {
		c.HandledAccessNet = 0
	}
	return c.BestEffort()
}

// enforce confines the calling OS thread, which stays locked to the
// calling goroutine for good: the program that thread executes, and every
// process it starts, inherit the ruleset. It refuses to go on when there
// is nothing the kernel would enforce.
func (p *Policy) enforce(st Status) error {
	if st.ABI < 1 {
		return &UnavailableError{Reason: st.Reason}
	}
	p.createCaches()
	fd, flags, err := p.config(st.ABI).NewRulesetFD(p.rules(st.ABI)...)
	if err != nil {
		return fmt.Errorf("sandbox: building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return &UnavailableError{Reason: "the kernel would enforce nothing of the ruleset"}
	}
	defer unix.Close(fd)
	runtime.LockOSThread() // never unlocked: this thread is confined
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("sandbox: dropping capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
	}
	if nativeArch != nil {
		if err := loadFilter(filter(*nativeArch, p.Net)); err != nil {
			return fmt.Errorf("sandbox: seccomp filter: %w", err)
		}
	}
	return nil
}

// loadFilter installs a seccomp filter on the calling thread (no_new_privs
// is already set).
func loadFilter(ins []bpf.Instruction) error {
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}

// dropCapabilities takes every capability away from the calling thread and
// from what it executes: a root process keeps its uid but can no longer
// use raw sockets, load modules or reboot, which Landlock does not cover.
// Without capabilities (an ordinary user) there is nothing to do.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		return nil
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	data = [2]unix.CapUserData{}
	return unix.Capset(&hdr, &data[0])
}

// createCaches makes the tools' cache folders and the private temporary
// folder that do not exist yet; one that cannot be made is left out of the
// ruleset.
func (p *Policy) createCaches() {
	kept := p.Writable[:0]
	for _, g := range p.Writable {
		if g.Private {
			if err := makePrivate(g.Path); err != nil {
				p.drop(g, err.Error())
				continue
			}
			g.Create = false
		}
		if g.Create {
			if err := os.MkdirAll(g.Path, 0o755); err != nil {
				p.drop(g, err.Error())
				continue
			}
			g.Create = false
		}
		kept = append(kept, g)
	}
	p.Writable = kept
}

// makePrivate makes the private temporary folder if it is missing, and
// makes sure it is a folder of this user's that only this user can enter
// (not a link, not someone else's planted in its place).
func makePrivate(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s belongs to another user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// Exec confines the calling process and replaces it with the program at
// path. It returns only on failure, and never runs the program unconfined.
func (p *Policy) Exec(st Status, path string, argv, env []string) error {
	if err := p.enforce(st); err != nil {
		return err
	}
	if err := syscall.Exec(path, argv, p.Env(env)); err != nil {
		return &os.PathError{Op: "exec", Path: path, Err: err}
	}
	return nil
}

// Start confines the calling goroutine's thread and starts cmd from it, so
// that the child is confined while the caller stays its parent. The caller
// must not use the confined thread for anything that needs more.
//
// The caller's process is made non-dumpable first, for good: its confined
// thread shares the Landlock domain of the child, and Landlock lets a
// process trace anything of its own domain. Traced, that thread would give
// the child the memory of the whole process, whose other threads are not
// confined (PTRACE_POKEDATA, process_vm_writev, /proc/PID/task/TID/mem).
// Without the capabilities the child has dropped, a non-dumpable process
// cannot be traced or read.
func (p *Policy) Start(st Status, cmd *exec.Cmd) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_DUMPABLE): %w", err)
	}
	if err := p.enforce(st); err != nil {
		return err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = p.Env(cmd.Env)
	return cmd.Start()
}
