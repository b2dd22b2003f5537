package sandbox

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// seccompArch is what the network filter needs to know of a CPU
// architecture: its audit id and system call numbers, and those of the
// 32-bit compatibility mode the kernel also accepts on it.
type seccompArch struct {
	audit       uint32
	socket      uint32
	ioUring     [3]uint32 // io_uring_setup, io_uring_enter, io_uring_register
	ioctl       uint32
	x32Bit      uint32 // set in the numbers of the x32 ABI (amd64), else 0
	compatAudit uint32
	compatIoctl uint32
	compatCalls []uint32 // socketcall, socket and io_uring of the compat mode
}

// Values of the filter's decisions and of the socket arguments it reads.
const (
	retAllow  = 0x7fff0000      // SECCOMP_RET_ALLOW
	retEACCES = 0x00050000 | 13 // SECCOMP_RET_ERRNO | EACCES
	afUnix    = 1               // AF_UNIX
	afNetlink = 16              // AF_NETLINK
	tiocsti   = 0x5412          // TIOCSTI: push a byte into the terminal's input
	tioclinux = 0x541c          // TIOCLINUX: console paste and more
	offNr     = 0               // seccomp_data.nr
	offArch   = 4               // seccomp_data.arch
	offArg0   = 16              // low half of args[0] (little-endian)
	offArg1   = offArg0 + 8     // args[1]
	offArg2   = offArg0 + 16    // args[2]
)

// Labels of the filter's branches.
const (
	labelDeny   = "deny"
	labelAllow  = "allow"
	labelCompat = "compat"
	labelSocket = "socket"
	labelIoctl  = "ioctl"

	labelCompatIoctl = "compat-ioctl"
)

// filter is the seccomp program that closes what Landlock leaves open.
//
// Always: TIOCSTI and TIOCLINUX, with which a process holding the terminal
// (even one inherited before the sandbox) types commands into the shell
// that runs after it, and the x32 ABI.
//
// Unless the network is open: only Unix-domain and netlink sockets may be
// made; every other family fails with EACCES. Landlock confines TCP
// connect and bind, but not a listen on a socket never bound (the kernel
// binds it to a free port: a server anyone can reach), nor Multipath TCP,
// SMC, UDP (DNS, before ABI 10), raw sockets, or the families that reach
// past the machine without IP at all (AF_VSOCK to a virtual machine's
// host, RDS, TIPC, …): with the network closed no Internet socket is of
// use, so none is made. io_uring, through which a socket could be made
// without the socket call, and the 32-bit ways to make a socket fail too.
func filter(a seccompArch, net bool) []bpf.Instruction {
	p := &program{labels: map[string]int{}}
	p.emit(bpf.LoadAbsolute{Off: offArch, Size: 4})
	p.jumpIfNot(a.audit, labelCompat)
	p.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.x32Bit != 0 {
		p.jumpIfSet(a.x32Bit, labelDeny)
	}
	p.jumpIf(a.ioctl, labelIoctl)
	if !net {
		p.jumpIf(a.socket, labelSocket)
		for _, nr := range a.ioUring {
			p.jumpIf(nr, labelDeny)
		}
	}
	p.ret(retAllow)

	p.label(labelIoctl)
	p.emit(bpf.LoadAbsolute{Off: offArg1, Size: 4})
	p.jumpIf(tiocsti, labelDeny)
	p.jumpIf(tioclinux, labelDeny)
	p.ret(retAllow)

	if !net {
		p.label(labelSocket)
		p.emit(bpf.LoadAbsolute{Off: offArg0, Size: 4})
		p.jumpIf(afUnix, labelAllow)
		p.jumpIf(afNetlink, labelAllow)
		p.ret(retEACCES)
	}

	p.label(labelCompat)
	if a.compatAudit != 0 {
		p.jumpIfNot(a.compatAudit, labelAllow)
		p.emit(bpf.LoadAbsolute{Off: offNr, Size: 4})
		p.jumpIf(a.compatIoctl, labelCompatIoctl)
		if !net {
			for _, nr := range a.compatCalls {
				p.jumpIf(nr, labelDeny)
			}
		}
		p.ret(retAllow)
		p.label(labelCompatIoctl) // BPF jumps only forward: the ioctl test again
		p.emit(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		p.jumpIf(tiocsti, labelDeny)
		p.jumpIf(tioclinux, labelDeny)
	}
	p.label(labelAllow)
	p.ret(retAllow)
	p.label(labelDeny)
	p.ret(retEACCES)
	return p.resolve()
}

// program assembles a BPF program whose forward jumps name labels.
type program struct {
	ins    []bpf.Instruction
	jumps  map[int]jump // instruction index -> its targets
	labels map[string]int
}

type jump struct {
	val    uint32
	cond   bpf.JumpTest
	target string
	onTrue bool
}

func (p *program) emit(i bpf.Instruction) { p.ins = append(p.ins, i) }
func (p *program) ret(v uint32)           { p.emit(bpf.RetConstant{Val: v}) }
func (p *program) label(name string)      { p.labels[name] = len(p.ins) }

func (p *program) addJump(j jump) {
	if p.jumps == nil {
		p.jumps = map[int]jump{}
	}
	p.jumps[len(p.ins)] = j
	p.emit(bpf.JumpIf{})
}

// jumpIf goes to target when A == v.
func (p *program) jumpIf(v uint32, target string) {
	p.addJump(jump{val: v, cond: bpf.JumpEqual, target: target, onTrue: true})
}

// jumpIfNot goes to target when A != v.
func (p *program) jumpIfNot(v uint32, target string) {
	p.addJump(jump{val: v, cond: bpf.JumpEqual, target: target})
}

// jumpIfSet goes to target when A & v != 0.
func (p *program) jumpIfSet(v uint32, target string) {
	p.addJump(jump{val: v, cond: bpf.JumpBitsSet, target: target, onTrue: true})
}

// resolve turns the labels into skips. Every jump goes forward, to a label
// that exists, at most 255 instructions on; anything else is a bug in the
// filter, caught by its tests.
func (p *program) resolve() []bpf.Instruction {
	for at, j := range p.jumps {
		to, ok := p.labels[j.target]
		if !ok || to <= at || to-at-1 > 255 {
			panic(fmt.Sprintf("seccomp filter: jump from %d to %q (%d)", at, j.target, to))
		}
		skip := uint8(to - at - 1)
		in := bpf.JumpIf{Cond: j.cond, Val: j.val}
		if j.onTrue {
			in.SkipTrue = skip
		} else {
			in.SkipFalse = skip
		}
		p.ins[at] = in
	}
	return p.ins
}
