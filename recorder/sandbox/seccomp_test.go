package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
)

// seccompData lays out struct seccomp_data for the BPF test machine, which
// loads words big-endian (the kernel loads them in host order).
func seccompData(arch, nr uint32, args ...uint32) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[offNr:], nr)
	binary.BigEndian.PutUint32(b[offArch:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[offArg0+8*i:], a)
	}
	return b
}

func TestNetworkFilter(t *testing.T) {
	for _, a := range []struct {
		name string
		arch seccompArch
	}{
		{"amd64", seccompArch{audit: 0xc000003e, socket: 41, ioctl: 16, compatIoctl: 54, ioUring: [3]uint32{425, 426, 427}, x32Bit: 0x40000000,
			compatAudit: 0x40000003, compatCalls: []uint32{102, 359, 425, 426, 427}}},
		{"arm64", seccompArch{audit: 0xc00000b7, socket: 198, ioctl: 29, compatIoctl: 54, ioUring: [3]uint32{425, 426, 427},
			compatAudit: 0x40000028, compatCalls: []uint32{281, 425, 426, 427}}},
	} {
		t.Run(a.name, func(t *testing.T) {
			vm, err := bpf.NewVM(filter(a.arch, false))
			if err != nil {
				t.Fatal(err)
			}
			const nonblockCloexec = 0x800 | 0x80000
			sock := a.arch.socket
			for _, c := range []struct {
				name string
				data []byte
				want uint32
			}{
				{"unix", seccompData(a.arch.audit, sock, afUnix, 2, 0), retAllow},
				{"unix stream nonblocking", seccompData(a.arch.audit, sock, afUnix, 1|nonblockCloexec, 0), retAllow},
				{"netlink", seccompData(a.arch.audit, sock, afNetlink, 3, 0), retAllow},
				// Landlock would stop connect and bind, not a listen on
				// a socket never bound (the kernel binds it itself).
				{"tcp", seccompData(a.arch.audit, sock, testAFInet, 1, 0), retEACCES},
				{"tcp6 nonblocking", seccompData(a.arch.audit, sock, testAFInet6, 1|nonblockCloexec, 6), retEACCES},
				{"mptcp", seccompData(a.arch.audit, sock, testAFInet, 1, 262), retEACCES},
				{"smc over inet", seccompData(a.arch.audit, sock, testAFInet, 1, 256), retEACCES},
				{"udp", seccompData(a.arch.audit, sock, testAFInet, 2, 0), retEACCES},
				{"raw", seccompData(a.arch.audit, sock, testAFInet6, 3, 1), retEACCES},
				{"vsock", seccompData(a.arch.audit, sock, 40, 1, 0), retEACCES},
				{"smc", seccompData(a.arch.audit, sock, 43, 1, 0), retEACCES},
				{"rds", seccompData(a.arch.audit, sock, 21, 5, 0), retEACCES},
				{"tipc", seccompData(a.arch.audit, sock, 30, 5, 0), retEACCES},
				{"packet", seccompData(a.arch.audit, sock, 17, 3, 0), retEACCES},
				{"family with high bits", seccompData(a.arch.audit, sock, 0x10000|afUnix, 1, 0), retEACCES},
				{"io_uring_setup", seccompData(a.arch.audit, 425), retEACCES},
				{"read", seccompData(a.arch.audit, 0), retAllow},
				{"compat socketcall", seccompData(a.arch.compatAudit, a.arch.compatCalls[0]), retEACCES},
				{"compat read", seccompData(a.arch.compatAudit, 3), retAllow},
				{"other arch", seccompData(0x12345, sock, testAFInet, 2, 0), retAllow},
				{"TIOCSTI", seccompData(a.arch.audit, a.arch.ioctl, 0, tiocsti), retEACCES},
				{"TIOCLINUX", seccompData(a.arch.audit, a.arch.ioctl, 0, tioclinux), retEACCES},
				{"TCGETS", seccompData(a.arch.audit, a.arch.ioctl, 0, 0x5401), retAllow},
				{"compat TIOCSTI", seccompData(a.arch.compatAudit, a.arch.compatIoctl, 0, tiocsti), retEACCES},
			} {
				got, err := vm.Run(c.data)
				if err != nil {
					t.Fatal(err)
				}
				if uint32(got) != c.want {
					t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
				}
			}
			if a.arch.x32Bit != 0 {
				if got, _ := vm.Run(seccompData(a.arch.audit, a.arch.x32Bit|41, afUnix, 1, 0)); uint32(got) != retEACCES {
					t.Errorf("x32 socket: %#x", got)
				}
			}
		})
	}
}

// TestFilterWithTheNetworkOpen: --net lifts the socket rules, never the
// terminal's.
func TestFilterWithTheNetworkOpen(t *testing.T) {
	a := *nativeArchForTest()
	vm, err := bpf.NewVM(filter(a, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		want uint32
	}{
		{"tcp", seccompData(a.audit, a.socket, testAFInet, 1, 0), retAllow},
		{"mptcp", seccompData(a.audit, a.socket, testAFInet, 1, 262), retAllow},
		{"udp", seccompData(a.audit, a.socket, testAFInet, 2, 0), retAllow},
		{"vsock", seccompData(a.audit, a.socket, 40, 1, 0), retAllow},
		{"io_uring", seccompData(a.audit, a.ioUring[0]), retAllow},
		{"TIOCSTI", seccompData(a.audit, a.ioctl, 0, tiocsti), retEACCES},
	} {
		if got, _ := vm.Run(c.data); uint32(got) != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

// The Internet families, as the tests name them.
const (
	testAFInet  = 2
	testAFInet6 = 10
)

func nativeArchForTest() *seccompArch {
	return &seccompArch{audit: 0xc000003e, socket: 41, ioctl: 16, compatIoctl: 54, ioUring: [3]uint32{425, 426, 427},
		x32Bit: 0x40000000, compatAudit: 0x40000003, compatCalls: []uint32{102, 359, 425, 426, 427}}
}
