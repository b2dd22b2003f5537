package sandbox

// nativeArch is arm64, with the 32-bit ARM compatibility mode.
var nativeArch = &seccompArch{
	audit: 0xc00000b7, socket: 198, ioctl: 29, compatIoctl: 54, ioUring: [3]uint32{425, 426, 427},
	compatAudit: 0x40000028, compatCalls: []uint32{281, 425, 426, 427},
}
