package gate

import (
	"os"
	"testing"
	"time"
)

func TestZZSyscallMarks(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	g := corpusTree(t, Options{})
	cmds := append(readCorpus(t, "testdata/everyday.txt"), readCorpus(t, "testdata/risky.txt")...)
	time.Sleep(settleTime)
	f, _ := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	for _, c := range cmds {
		g.Check(t.Context(), c, 0)
	}
	for _, c := range cmds {
		f.Write([]byte("MARK " + c))
		g.Check(t.Context(), c, 0)
	}
	f.Write([]byte("MARK END"))
}
