package redact

// pairBits is the size of the bitset indexed by two case-folded bytes.
const pairBits = 1 << 16

// scanner finds every trigger in one pass over the input: a bitset of the
// (case-folded) first two bytes of all triggers filters positions, a set of
// the third bytes of the triggers with those two filters them again (most
// pairs, "do", "at", "li", start common words), and only positions that
// pass both are compared with the triggers starting there.
type scanner struct {
	fold   [256]byte
	bits   [pairBits / 64]uint64
	bucket [pairBits]uint8 // 1 + index into groups; 0: no trigger (built-in triggers use a few dozen pairs)
	groups [][]int         // trigger indexes by first two bytes
	third  [256][4]uint64  // per group: the folded third bytes of its triggers; all set when one has two bytes
	texts  [][]byte        // lower-case trigger texts
}

// newScanner indexes lower-case triggers of at least two bytes.
func newScanner(triggers [][]byte) *scanner {
	sc := &scanner{texts: triggers}
	for c := range 256 {
		b := byte(c)
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		sc.fold[c] = b
	}
	for i, t := range triggers {
		k := uint16(t[0])<<8 | uint16(t[1])
		sc.bits[k/64] |= 1 << (k % 64)
		if sc.bucket[k] == 0 {
			sc.groups = append(sc.groups, nil)
			sc.bucket[k] = uint8(len(sc.groups))
		}
		g := sc.bucket[k] - 1
		sc.groups[g] = append(sc.groups[g], i)
		if len(t) == 2 {
			sc.third[g] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		} else {
			sc.third[g][t[2]/64] |= 1 << (t[2] % 64)
		}
	}
	return sc
}

// scan calls hit for every occurrence of every trigger, in order of
// position, ignoring ASCII case.
func (sc *scanner) scan(s string, hit func(trigger, pos int)) {
	fold := &sc.fold
	for i := 0; i+1 < len(s); i++ {
		k := uint16(fold[s[i]])<<8 | uint16(fold[s[i+1]])
		if sc.bits[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		g := sc.bucket[k] - 1
		if i+2 < len(s) {
			if c := fold[s[i+2]]; sc.third[g][c/64]&(1<<(c%64)) == 0 {
				continue
			}
		}
		for _, ti := range sc.groups[g] {
			if sc.at(s, i, sc.texts[ti]) {
				hit(ti, i)
			}
		}
	}
}

// at reports whether the lower-case text t occurs at s[i:], ignoring case.
func (sc *scanner) at(s string, i int, t []byte) bool {
	if len(s)-i < len(t) {
		return false
	}
	for j := 2; j < len(t); j++ {
		if sc.fold[s[i+j]] != t[j] {
			return false
		}
	}
	return true
}
