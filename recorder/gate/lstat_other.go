//go:build !(linux && (amd64 || arm64))

package gate

import "golang.org/x/sys/unix"

// lstatPath is lstat(2) of p into st.
func (a *analysis) lstatPath(p string, st *unix.Stat_t) error { return unix.Lstat(p, st) }

// statIn is stat(2) of dir + "/" + name into st (links followed).
func (a *analysis) statIn(dir, name string, st *unix.Stat_t) error {
	return unix.Stat(dir+"/"+name, st)
}

// statPath is stat(2) of p (links followed) into st.
func (a *analysis) statPath(p string, st *unix.Stat_t) error { return unix.Stat(p, st) }
