// Command benchrun is the engine of .ci/bench: it times whole processes
// against an alternative, run alternately so that both see the same machine,
// and it lays out large synthetic sessions to measure against.
//
//	benchrun compare -n 21 -name "cuff version" -a "cuff version" -b "/bin/true"
//	benchrun gen-session -dir DIR -events 100000
//	benchrun gen-claude -out FILE -mb 200 -last "the last prompt"
//	benchrun gen-claude-history -dir CONFIG_DIR -sessions 1000 -mb 958
//	benchrun first-screen -n 5 -name "cuff watch" -a "cuff watch FILE" -text "the last prompt"
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchrun compare|gen-session [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "compare":
		err = compare(os.Args[2:])
	case "gen-session":
		err = genSession(os.Args[2:])
	case "gen-claude":
		err = genClaude(os.Args[2:])
	case "gen-claude-history":
		err = genClaudeHistory(os.Args[2:])
	case "first-screen":
		err = firstScreen(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

// sample is one timed run of a process.
type sample struct {
	wall  time.Duration
	cpu   time.Duration // user and system time, the process's and its children's
	maxKB int64
}

// runSetup runs a shell command that prepares a run (clearing a cache for
// a cold one); "" does nothing.
func runSetup(command string) error {
	if command == "" {
		return nil
	}
	out, err := exec.Command("/bin/sh", "-c", command).CombinedOutput()
	if err != nil {
		return fmt.Errorf("setup %s: %v: %s", command, err, out)
	}
	return nil
}

func runOnce(command, stdin string) (sample, error) {
	cmd := exec.Command("/bin/sh", "-c", "exec "+command)
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			return sample{}, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return sample{}, err
	}
	defer devnull.Close()
	cmd.Stdout = devnull
	var errOut strings.Builder
	cmd.Stderr = &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %v: %s", command, err, errOut.String())
	}
	wall := time.Since(start)
	var maxKB int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxKB = ru.Maxrss
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return sample{wall: wall, cpu: cpu, maxKB: maxKB}, nil
}

func median(xs []time.Duration) time.Duration {
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	n := fs.Int("n", 21, "runs of each")
	name := fs.String("name", "", "what is measured")
	a := fs.String("a", "", "cuff's command")
	b := fs.String("b", "", "the alternative's command (empty: cuff's figure alone)")
	stdin := fs.String("stdin", "", "file fed to both on stdin")
	goal := fs.String("goal", "", "the goal, printed beside the ratio")
	setup := fs.String("setup", "", "a shell command run before each run of both")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var as, bs, aCPU, bCPU []time.Duration
	var aKB, bKB int64
	for i := 0; i < *n; i++ {
		if err := runSetup(*setup); err != nil {
			return err
		}
		sa, err := runOnce(*a, *stdin)
		if err != nil {
			return err
		}
		aCPU = append(aCPU, sa.cpu)
		if *b == "" {
			as, aKB = append(as, sa.wall), max(aKB, sa.maxKB)
			continue
		}
		if err := runSetup(*setup); err != nil {
			return err
		}
		sb, err := runOnce(*b, *stdin)
		if err != nil {
			return err
		}
		as, bs = append(as, sa.wall), append(bs, sb.wall)
		bCPU = append(bCPU, sb.cpu)
		aKB, bKB = max(aKB, sa.maxKB), max(bKB, sb.maxKB)
	}
	if *b == "" { // nothing to compare with: the figure alone
		fmt.Printf("%-34s cuff %10s  (CPU %s, peak RSS %d MB, %d runs, load %s)", *name, ms(median(as)), ms(median(aCPU)), aKB/1024, *n, load())
		if *goal != "" {
			fmt.Printf("  goal: %s", *goal)
		}
		fmt.Println()
		return nil
	}
	ma, mb := median(as), median(bs)
	ratio := float64(ma) / float64(mb)
	fmt.Printf("%-34s cuff %10s  vs %-28s %10s  ratio %5.2fx  (CPU %s vs %s, peak RSS %d MB vs %d MB, %d runs each)",
		*name, ms(ma), clip(*b, 28), ms(mb), ratio, ms(median(aCPU)), ms(median(bCPU)), aKB/1024, bKB/1024, *n)
	fmt.Printf("  load %s", load())
	if *goal != "" {
		fmt.Printf("  goal: %s", *goal)
	}
	fmt.Println()
	return nil
}

// load is the machine's load average over the last minute, which
// stretches every wall-clock figure of a shared machine ("?" when unknown).
func load() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// genSession writes one large native session shaped like a busy agent
// session: turns, tool calls with output, bash runs with output.
func genSession(args []string) error {
	fs := flag.NewFlagSet("gen-session", flag.ContinueOnError)
	dir := fs.String("dir", "", "the .cuff directory to write into")
	events := fs.Int("events", 100000, "number of events")
	sessions := fs.Int("sessions", 1, "number of sessions (events are per session)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s := session.Open(*dir)
	s.NoSync = true
	output := strings.Repeat("ok  \tgithub.com/example/pkg/sub\t0.012s\n", 17)
	at := time.Date(2026, 1, 18, 14, 30, 52, 0, time.UTC)
	for k := 0; k < *sessions; k++ {
		w, err := s.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook, WorkingDirectory: "/work/project"}, at)
		if err != nil {
			return err
		}
		batch := make([]*transcript.Event, 0, 1000)
		for i := 1; i < *events-1; i++ {
			ts := at.Add(time.Duration(i) * 100 * time.Millisecond)
			code := i % 7 / 6
			var body transcript.Body
			switch i % 5 {
			case 0:
				body = &transcript.ChatTurn{Role: transcript.RoleAssistant, Text: "I'll run the tests now and then look at the failing package.\n\n```go\nfunc TestX(t *testing.T) {}\n```", Model: "claude-sonnet-4"}
			case 1:
				body = &transcript.ToolCall{Tool: "Read", Input: []byte(`{"file_path":"/work/project/internal/store/store.go"}`)}
			case 2:
				body = &transcript.ToolResult{Tool: "Read", Output: output, DurationMS: 3}
			case 3:
				body = &transcript.BashStart{Command: "go test ./...", WorkingDirectory: "/work/project"}
			default:
				body = &transcript.BashRun{Command: "go test ./...", WorkingDirectory: "/work/project", ExitCode: &code, Stdout: output, DurationMS: 1234}
			}
			batch = append(batch, transcript.New(w.ID(), ts, body))
			if len(batch) == cap(batch) {
				if err := w.Append(batch...); err != nil {
					return err
				}
				batch = batch[:0]
			}
		}
		if err := w.Append(batch...); err != nil {
			return err
		}
		if err := w.Close(transcript.StatusComplete); err != nil {
			return err
		}
		fmt.Println(w.ID())
	}
	return nil
}

// genClaude writes one Claude Code transcript of about the size asked and
// prints its path.
func genClaude(args []string) error {
	fs := flag.NewFlagSet("gen-claude", flag.ContinueOnError)
	out := fs.String("out", "", "the transcript to write (<dir>/<uuid>.jsonl when a directory)")
	mb := fs.Int64("mb", 200, "size in MB")
	seed := fs.Uint64("seed", 1, "seed of the content")
	last := fs.String("last", "", "a prompt to end the transcript with (what a first screen waits for)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("gen-claude needs -out")
	}
	start := time.Now().Add(-14 * 24 * time.Hour)
	tr, err := synthetic.WriteClaudeFile(*out, synthetic.ClaudeOptions{Bytes: *mb << 20, Seed: *seed, Start: start})
	if err != nil {
		return err
	}
	if *last != "" {
		line := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":%q,"version":"2.1.40","gitBranch":"main","type":"user","message":{"role":"user","content":%q},"uuid":"last-prompt","timestamp":%q}`+"\n",
			tr.SessionID, *last, tr.Last.Add(time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"))
		f, err := os.OpenFile(*out, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	fmt.Println(tr.Path)
	return nil
}

// firstScreen times a TUI from its start until a text is on screen, in a
// tmux of its own, and reads its peak RSS then (the largest of the
// processes in the pane); runs alternate with another TUI's when -b is
// given.
func firstScreen(args []string) error {
	fs := flag.NewFlagSet("first-screen", flag.ContinueOnError)
	n := fs.Int("n", 5, "runs of each")
	name := fs.String("name", "", "what is measured")
	a := fs.String("a", "", "cuff's command")
	b := fs.String("b", "", "the alternative's command (optional)")
	text := fs.String("text", "", "the text whose appearance ends a run")
	goal := fs.String("goal", "", "the goal")
	if err := fs.Parse(args); err != nil {
		return err
	}
	runs := 0
	measure := func(cmdline string) ([]time.Duration, int64, error) {
		var ds []time.Duration
		var peak int64
		for i := 0; i < *n; i++ {
			runs++
			d, kb, err := screenOnce(cmdline, *text, runs)
			if err != nil {
				return nil, 0, err
			}
			ds, peak = append(ds, d), max(peak, kb)
		}
		return ds, peak, nil
	}
	as, aKB, err := measure(*a)
	if err != nil {
		return err
	}
	line := fmt.Sprintf("%-34s cuff %10s  (peak RSS %d MB, %d runs)", *name, ms(median(as)), aKB/1024, *n)
	if *b != "" {
		bs, bKB, err := measure(*b)
		if err != nil {
			return err
		}
		line += fmt.Sprintf("  vs %s %s (peak RSS %d MB)", clip(*b, 28), ms(median(bs)), bKB/1024)
	}
	if *goal != "" {
		line += "  goal: " + *goal
	}
	fmt.Println(line)
	return nil
}

// screenWait bounds one first-screen run.
const screenWait = 5 * time.Minute

// screenOnce runs one program in a tmux server of its own (run numbers
// them: a new server on a socket just killed may find the old one dying).
func screenOnce(cmdline, text string, run int) (time.Duration, int64, error) {
	socket := fmt.Sprintf("benchrun-%d-%d", os.Getpid(), run)
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-f", "/dev/null", "-L", socket}, args...)...).CombinedOutput()
		return string(out), err
	}
	defer tmux("kill-server") //nolint:errcheck // the server may be gone
	start := time.Now()
	// The pane's shell runs the program and stays, so that a program that
	// fails shows why.
	if out, err := tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "b", cmdline+"; echo exit status $?; sleep 600"); err != nil {
		return 0, 0, fmt.Errorf("tmux: %v: %s", err, out)
	}
	pid, _ := tmux("list-panes", "-t", "b", "-F", "#{pane_pid}")
	var screen string
	for time.Since(start) < screenWait {
		var err error
		screen, err = tmux("capture-pane", "-p", "-t", "b")
		if err == nil && strings.Contains(screen, text) {
			d := time.Since(start)
			return d, peakKB(strings.TrimSpace(pid)), nil
		}
		if strings.Contains(screen, "exit status ") {
			break
		}
		time.Sleep(5 * time.Millisecond) // polling the screen: tmux has no event for it
	}
	return 0, 0, fmt.Errorf("%q never showed %q:\n%s", cmdline, text, screen)
}

// peakKB is the largest VmHWM of a process and its children.
func peakKB(pid string) int64 {
	var peak int64
	queue := []string{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if data, err := os.ReadFile("/proc/" + p + "/status"); err == nil {
			for _, l := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
					var kb int64
					fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
					peak = max(peak, kb)
				}
			}
		}
		if data, err := os.ReadFile("/proc/" + p + "/task/" + p + "/children"); err == nil {
			queue = append(queue, strings.Fields(string(data))...)
		}
	}
	return peak
}

// genClaudeHistory writes a Claude Code history of many sessions under a
// configuration folder (what CLAUDE_CONFIG_DIR names).
func genClaudeHistory(args []string) error {
	fs := flag.NewFlagSet("gen-claude-history", flag.ContinueOnError)
	dir := fs.String("dir", "", "the Claude Code configuration folder to write into")
	sessions := fs.Int("sessions", 1000, "number of sessions")
	mb := fs.Int64("mb", 958, "total size in MB")
	seed := fs.Uint64("seed", 1, "seed of the content")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("gen-claude-history needs -dir")
	}
	trs, err := synthetic.ClaudeHistory(*dir, synthetic.HistoryOptions{Sessions: *sessions, Bytes: *mb << 20, Seed: *seed})
	if err != nil {
		return err
	}
	var total int64
	for _, tr := range trs {
		total += tr.Bytes
	}
	fmt.Printf("%d sessions, %d MB\n", len(trs), total>>20)
	return nil
}
