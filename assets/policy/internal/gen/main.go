// Command gen writes default.json, the built-in policy pre-parsed from
// default.yml, so that every cuff process (a hook runs once per tool call)
// loads it without parsing YAML:
//
//	go run ./assets/policy/internal/gen > assets/policy/default.json
package main

import (
	"fmt"
	"os"

	policyasset "github.com/cuff-dev/cuff/assets/policy"
	"github.com/cuff-dev/cuff/recorder/gate"
)

func main() {
	p, err := gate.ParsePolicy(gate.BuiltinPolicyName, policyasset.Default())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := gate.MarshalBuiltin(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
