package sandbox

// nativeArch is amd64, with the i386 compatibility mode and x32.
var nativeArch = &seccompArch{
	audit: 0xc000003e, socket: 41, ioctl: 16, compatIoctl: 54, ioUring: [3]uint32{425, 426, 427}, x32Bit: 0x40000000,
	compatAudit: 0x40000003, compatCalls: []uint32{102, 359, 425, 426, 427},
}
