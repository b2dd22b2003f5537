//go:build !amd64 && !arm64

package sandbox

// nativeArch is nil where cuff has no network filter: Landlock alone
// confines TCP, and Multipath TCP and UDP stay open.
var nativeArch *seccompArch
