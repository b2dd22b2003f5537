package sandbox

import (
	"fmt"
	"strconv"
)

// Landlock ABI versions that matter to cuff.
const (
	// ABINetwork is the first ABI that confines TCP bind and connect.
	ABINetwork = 4
	// maxABI is the newest ABI the landlock library knows.
	maxABI = 11
)

// SimulateEnv names the variable with which tests pretend the kernel
// offers at most a given Landlock ABI (0: none). It can only take
// confinement away, never add it.
const SimulateEnv = "CUFF_LANDLOCK_ABI"

// Status is what the kernel can enforce.
type Status struct {
	// ABI is the Landlock ABI cuff uses (0: no Landlock).
	ABI int
	// Reason says why the sandbox is unavailable or partial ("" when it
	// confines files and TCP).
	Reason string
}

// Available reports whether the sandbox confines both files and TCP.
func (s Status) Available() bool { return s.ABI >= ABINetwork }

// String describes the status for cuff health and cuff check.
func (s Status) String() string {
	if s.Available() {
		return fmt.Sprintf("Landlock ABI %d: files and TCP confined", s.ABI)
	}
	return s.Reason
}

// Probe asks the kernel which Landlock ABI it offers, lowered by
// $CUFF_LANDLOCK_ABI when that is set (tests simulate older kernels so).
func Probe(getenv func(string) string) Status {
	abi, reason := kernelABI()
	if abi > maxABI {
		abi = maxABI
	}
	if getenv != nil {
		if v := getenv(SimulateEnv); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < abi {
				abi = n
				reason = fmt.Sprintf("Landlock limited to ABI %d by %s=%s", n, SimulateEnv, v)
			}
		}
	}
	s := Status{ABI: abi}
	switch {
	case abi == 0 && reason != "":
		s.Reason = reason
	case abi == 0:
		s.Reason = "the kernel has no Landlock (it needs Linux 5.13 or later with landlock in the lsm= boot parameter)"
	case abi < ABINetwork:
		s.Reason = fmt.Sprintf("Landlock ABI %d confines files but not TCP (that needs ABI %d, Linux 6.7)", abi, ABINetwork)
		if reason != "" {
			s.Reason += "; " + reason
		}
	}
	return s
}

// UnavailableError is a sandbox the kernel cannot enforce: cuff then runs
// nothing, rather than run it unconfined.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return "the sandbox is unavailable: " + e.Reason }

// Hint tells the way out.
func (e *UnavailableError) Hint() string {
	return "Hint: cuff health says what the kernel offers; run the command without the sandbox only if a person approved it"
}

// Modes of gate.sandbox.
const (
	ModeAuto   = "auto"
	ModeAlways = "always"
	ModeOff    = "off"
)

// Setup is the sandbox as one project uses it: whether the commands cuff
// allows run inside it, and if not, why.
type Setup struct {
	// Mode is gate.sandbox: auto, always or off.
	Mode   string
	Status Status
	// Policy is what sandboxed commands may write; nil when the sandbox is
	// off or could not be built.
	Policy *Policy
	// Err is why the policy could not be built (a *ConflictError, …).
	Err error
}

// Resolve decides whether allowed commands run sandboxed.
func Resolve(mode string, st Status, opts Options) *Setup {
	s := &Setup{Mode: mode, Status: st}
	if mode == ModeOff || !st.Available() {
		return s
	}
	s.Policy, s.Err = New(opts)
	return s
}

// On reports whether allowed commands run inside the sandbox.
func (s *Setup) On() bool { return s != nil && s.Policy != nil }

// Required reports whether gate.sandbox is always: without the sandbox, cuff
// asks rather than allow.
func (s *Setup) Required() bool { return s != nil && s.Mode == ModeAlways }

// Reason says why the sandbox is off ("" when it is on).
func (s *Setup) Reason() string {
	switch {
	case s == nil:
		return "no sandbox was set up"
	case s.On():
		return ""
	case s.Mode == ModeOff:
		return "gate.sandbox is off"
	case !s.Status.Available():
		return s.Status.Reason
	case s.Err != nil:
		return s.Err.Error()
	}
	return "the sandbox could not be set up"
}
