// Package assets owns the files embedded in cuff: the demo session (assets/demo) and the built-in gate policy (assets/policy).
// Its packages import nothing of cuff at run time; their generators (internal/gen) may use transcript and recorder/gate.
package assets
