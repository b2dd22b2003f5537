package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/cuff-dev/cuff/assets/demo"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/tui"
	"github.com/cuff-dev/cuff/tui/demoplay"
	"github.com/spf13/cobra"
)

// tuiCommands are the commands that open the terminal UI (watch, demo).
func (a *app) tuiCommands() []*cobra.Command {
	return []*cobra.Command{a.watchCommand(), a.demoCommand()}
}

// runBrowser is what plain `cuff` does: browse sessions in the TUI.
func (a *app) runBrowser(cmd *cobra.Command, _ []string) error {
	s, err := a.openStore()
	if err != nil {
		return err
	}
	b, berr := a.ws.Broker()
	defer a.announce(b)()
	opts := tui.Options{
		Sources: a.tuiSources(s), Mode: tui.ModeBrowse,
		ExportDir: filepath.Join(s.Dir, "exports"), Where: s.Dir,
	}
	if a.ws != nil && a.ws.Store == s {
		if searcher, err := a.ws.Searcher(); err == nil { // without a cache directory, no search
			defer searcher.Close()
			opts.Searcher = searcher
		}
	}
	return a.runTUI(cmd.Context(), opts, b, berr)
}

// announce tells processes started without CUFF_STATE_DIR and
// XDG_STATE_HOME (an MCP server under Codex) where this TUI watches for
// approval requests, when that is not the default state directory. The
// returned function withdraws it.
func (a *app) announce(b *approval.Broker) func() {
	if b == nil {
		return func() {}
	}
	release, err := approval.Announce(a.getenv, b.Dir)
	if err != nil {
		a.logger().Warn("could not announce the state directory: " + err.Error())
	}
	return release
}

// tuiSources are the places the TUI lists sessions from: the project's
// store and the agents' own folders the settings switch on, joined, one
// session per conversation.
func (a *app) tuiSources(s *session.Store) []session.Source {
	if a.ws != nil && a.ws.Store == s {
		return []session.Source{a.ws.Joined()}
	}
	return []session.Source{s.Source()}
}

func (a *app) watchCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "watch [ID|FILE]",
		Short: "Follow a session live in the TUI",
		Long: `Follow a session live: the newest session being recorded (waiting for one
to start when there is none), the session with the given (partial) id, or any
JSONL session file.`,
		Example: `  cuff watch
  cuff watch a7b3c9d2
  cuff watch .cuff/recordings/sessions/20260118_143052_a7b3c9d2-e4f5.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore()
			if err != nil {
				return err
			}
			opts := tui.Options{
				Sources: a.tuiSources(s), Mode: tui.ModeWatch,
				ExportDir: filepath.Join(s.Dir, "exports"), Where: s.Dir,
			}
			if len(args) == 1 {
				info, err := a.resolveWatch(cmd.Context(), s, opts.Sources, args[0])
				if err != nil {
					return err
				}
				opts.Watch = &info
				opts.Sources = append(opts.Sources, a.extraSources...)
			}
			b, berr := a.ws.Broker()
			defer a.announce(b)()
			return a.runTUI(cmd.Context(), opts, b, berr)
		},
	}
}

// resolveWatch finds what `cuff watch ARG` names: a file, a session of
// the store by (partial) id, or a session of another source by its id.
func (a *app) resolveWatch(ctx context.Context, s *session.Store, sources []session.Source, arg string) (session.Info, error) {
	if fi, err := os.Stat(arg); err == nil && !fi.IsDir() {
		fs, err := session.NewFileSource(arg)
		if err != nil {
			return session.Info{}, err
		}
		if f := fs.Format(); f == foreign.FormatClaude || f == foreign.FormatCodex {
			// A Claude Code or Codex transcript is decoded line by line as it grows.
			a.extraSources = append(a.extraSources, fs)
			return fs.Info(), nil
		}
		// Any other file is read as cuff's events, and is live from what
		// they say (an event within session.LiveWindow), as any session is.
		info := fs.Info()
		return session.Info{ID: info.ID, Path: info.Path}, nil
	}
	if strings.HasSuffix(arg, ".jsonl") || strings.ContainsRune(arg, os.PathSeparator) {
		return session.Info{}, &usageError{
			msg:  fmt.Sprintf("no session file at %s", arg),
			hint: "Hint: Give the path of a .jsonl session file, or a session id from 'cuff record list'",
		}
	}
	var joined *session.Joined
	for _, src := range sources {
		if j, ok := src.(*session.Joined); ok {
			joined = j
		}
	}
	if info, ok := quickFind(s, arg); ok {
		if joined != nil {
			info.Conversation = joined.ConversationOf(info.ID) // follow it with its agent's transcript
		}
		return info, nil
	}
	if joined == nil {
		m, err := s.Find(arg)
		if err != nil {
			return session.Info{}, err
		}
		return s.InfoOf(m), nil
	}
	return joined.Find(ctx, arg)
}

// quickFind resolves a (partial) id that names exactly one session file
// of the store without summarising the store's sessions, which for a big
// session that the index has not seen yet takes seconds: `cuff watch ID`
// shows its first screen at once. The header's details come from the
// session's meta file when it has one, and from the session itself once
// it is read. Anything else (no match, several, bad input) is left to
// Store.Find and its errors.
func quickFind(s *session.Store, partial string) (session.Info, bool) {
	entries, err := os.ReadDir(s.SessionsDir())
	if err != nil || partial == "" {
		return session.Info{}, false
	}
	var found string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !session.ValidID(id) || !strings.Contains(id, partial) {
			continue
		}
		if id == partial {
			found = id
			break
		}
		if found != "" {
			return session.Info{}, false // ambiguous: let Find explain
		}
		found = id
	}
	if found == "" {
		return session.Info{}, false
	}
	info := session.Info{ID: found, Source: session.NativeSourceName, Path: s.EventsPath(found)}
	if data, err := regular.Read(s.MetaPath(found), "meta file", 16<<20, false); err == nil {
		var m session.Meta
		if json.Unmarshal(data, &m) == nil && m.SessionID == found {
			info = s.InfoOf(&m)
		}
	}
	return info, true
}

func (a *app) demoCommand() *cobra.Command {
	var speed float64
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a recorded agent session played live in the TUI",
		Long: `Play cuff's built-in demo session (an agent fixing a bug in a small Go
project) into a temporary store and follow it live. Its approval requests are
real ones, filed with an approval broker in the temporary directory: what you
answer decides whether the demo plays the command's run. Nothing is run and
nothing is written outside the temporary directory, except Ctrl+E exports,
which go to the system's temporary directory.`,
		Example: `  cuff demo
  cuff demo --speed 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if speed <= 0 {
				return &usageError{msg: fmt.Sprintf("--speed %v must be more than 0", speed), hint: "Hint: 1 is human pace, 2 twice as fast"}
			}
			tmp, err := os.MkdirTemp("", "cuff-demo-")
			if err != nil {
				return fmt.Errorf("create a temporary store: %w", err)
			}
			defer os.RemoveAll(tmp)
			dir := filepath.Join(tmp, session.DirName)
			b := approval.New(filepath.Join(tmp, "state"))
			b.Timeout = demoplay.ApprovalWait
			p, err := demoplay.New(demo.Session(), dir, speed, b)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			played := make(chan error, 1)
			go func() { played <- p.Run(ctx) }()
			info := p.Info()
			err = a.runTUI(ctx, tui.Options{
				Sources: []session.Source{session.Open(dir).Source()}, Mode: tui.ModeWatch, Watch: &info,
				ExportDir: filepath.Join(os.TempDir(), "cuff-demo-exports"), Where: "the demo",
				ApprovalNote: demoplay.Note, Banner: demoplay.Banner,
			}, b, nil)
			cancel()
			if perr := <-played; err == nil && perr != nil {
				err = perr
			}
			return err
		},
	}
	cmd.Flags().Float64Var(&speed, "speed", 1, "playback speed: 1 is human pace, 2 twice as fast")
	return cmd
}

// tuiGCPercent is the garbage collector's target while the TUI runs.
const tuiGCPercent = 25

// The soft memory limit while following a big session: a multiple of its
// file size, and never below a floor that small sessions never reach.
const (
	memoryLimitFactor = 1.8
	minMemoryLimit    = 64 << 20
)

// runTUI runs the TUI on the terminal, or explains why it cannot. With a
// broker, the TUI answers approval requests through it: it announces
// itself with a heartbeat and the broker's updates are fed into it for as
// long as it runs. Without one, berr says why approvals are off.
func (a *app) runTUI(ctx context.Context, opts tui.Options, b *approval.Broker, berr error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.stdout.Forward.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(in.Fd()) || !term.IsTerminal(out.Fd()) {
		return &usageError{
			msg:  "the TUI needs a terminal (stdin and stdout are not both one)",
			hint: "Hint: Use 'cuff record list' and 'cuff record show ID' for plain output",
		}
	}
	if a.store != nil {
		// The screen belongs to the TUI: warnings go to the log only.
		warn := a.store.Warn
		a.store.Warn = func(msg string) { a.logger().Warn(msg) }
		defer func() { a.store.Warn = warn }()
	}
	// A closed pane (SIGHUP) or kill (SIGTERM) ends the TUI like q does, so
	// that what it leaves behind (the demo's temporary store, its heartbeat)
	// is cleaned up.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	progOpts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out), tea.WithEnvironment(a.environ)}
	if a.noColor || a.getenv("NO_COLOR") != "" {
		progOpts = append(progOpts, tea.WithColorProfile(colorprofile.Ascii))
	}
	if a.getenv("GOGC") == "" {
		// A big session is kept in memory whole: collect garbage more
		// often so the process stays within twice the session's size.
		defer debug.SetGCPercent(debug.SetGCPercent(tuiGCPercent))
	}
	if a.ws != nil && opts.Theme == "" {
		opts.Theme = string(a.ws.Settings.TUI.Theme) // tui.theme: auto, dark or light
	}
	if a.ws != nil && opts.StatsCache == nil {
		opts.StatsCache = a.ws.StatsCache()
	}
	if opts.Getenv == nil {
		opts.Getenv = a.getenv
	}
	if a.ws != nil && opts.SandboxOff == "" {
		if setup := a.ws.Sandbox(); !setup.On() {
			opts.SandboxOff = setup.Reason()
		}
	}
	if opts.Watch != nil && opts.Watch.SizeBytes > 0 && a.getenv("GOMEMLIMIT") == "" {
		// A soft limit near the session's size makes the collector work
		// harder while the whole session is indexed, instead of letting the
		// heap grow past twice the file.
		limit := max(int64(float64(opts.Watch.SizeBytes)*memoryLimitFactor), minMemoryLimit)
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	log := a.logger()
	if b != nil {
		b.Warn = func(msg string) { log.Warn(msg) }
		opts.Approver, opts.ApprovalFeed = brokerApprover{b: b}, true
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := tui.NewProgram(ctx, opts, progOpts...)
	var feeds sync.WaitGroup
	feeds.Go(func() {
		if b == nil {
			if berr != nil {
				p.Send(brokerNotice(berr))
			}
			return
		}
		serveApprovals(ctx, b, p.Send, log)
	})
	_, err := p.Run()
	err = tui.Finished(ctx, err)
	cancel()
	feeds.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
