//go:build !linux

package main

// runAttack does nothing: the sandbox attacks run on Linux only.
func runAttack() {}
