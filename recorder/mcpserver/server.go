// Package mcpserver is cuff's MCP server: a recorded, gated bash tool
// (bash_recorder.execute), tools that describe the recording
// (bash_recorder.session_info, bash_recorder.list_recent,
// bash_recorder.health) and one tool per exposed project script.
//
// Every command an agent asks for is classified by the gate first; a command
// the gate asks about waits for a person's answer through the approval
// broker (the TUI, or `cuff approve`), and is refused at once when no one is
// watching unless the settings say otherwise. Commands run with stdin from
// /dev/null and their output captured only, so the protocol channel is never
// touched. Runs are recorded in a session of the project's store, which is
// finalized when the server shuts down, when the recording directory changes
// and when recording is turned off. The project's settings and policy are
// watched and take effect while the server runs.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server's name in the MCP handshake.
const Name = "cuff"

// Tool name separators: dotted names (bash_recorder.execute), or underscores for clients
// that accept only [A-Za-z0-9_-] in tool names.
const (
	SeparatorDot        = "."
	SeparatorUnderscore = "_"
)

// shutdownGrace bounds how long Run waits for the connection to close after
// it was told to stop; running commands are ended before that.
const shutdownGrace = 3 * time.Second

// Project is one project's store with the settings that apply to it.
type Project struct {
	// Store is the project's store, with redaction and the recordings
	// directory of the settings applied.
	Store *session.Store
	// Settings are the merged user and project settings.
	Settings *settings.Settings
	// Log receives cuff's own log records for the project; nil discards them.
	Log *slog.Logger
	// TrustedPolicy, when set, is the version of .cuff/policy.yml a person
	// trusted, the file on disk being a later one not trusted yet: its new
	// allow rules wait (gate.Options.TrustedPolicy).
	TrustedPolicy *gate.Policy
	// Protected are the directories outside the work tree that hold cuff's
	// and the agents' own state (gate.Options.Protected).
	Protected []string
}

// Sandbox is how a project's allowed commands are confined.
type Sandbox struct {
	// Setup says whether they run in the sandbox, and if not, why.
	Setup *sandbox.Setup
	// Wrap is the argv prefix that runs a command inside it (cuff sandbox
	// … --).
	Wrap []string
}

// on reports whether allowed commands run in the sandbox.
func (s Sandbox) on() bool { return s.Setup.On() && len(s.Wrap) > 0 }

// Options configures a Server.
type Options struct {
	// Version is cuff's version, told to clients and written into sessions.
	Version string
	// Dir is the store named by --dir or CUFF_DIR. Empty means: the first of
	// the client's roots that is a directory, else WorkDir.
	Dir string
	// WorkDir is where the store is looked for when neither Dir nor the
	// client's roots name one.
	WorkDir string
	// StateDir is the per-user state directory of approvals and watchers.
	StateDir string
	// Home is the user's home directory, for the gate's ~ and $HOME.
	Home string
	// ToolSeparator joins "bash_recorder" and a tool's name: "." (the
	// default) or "_".
	ToolSeparator string
	// Open opens the store in the .cuff directory dir with its settings. It
	// is called when the project is found and again on every change to its
	// settings or policy. Required.
	Open func(dir string) (*Project, error)
	// Command is the start of every command under the settings: the
	// environment, capture mode, output limit and resource limits. Required.
	Command func(cfg *settings.Settings) runner.Command
	// CapturedEnv is the environment recorded with a run when
	// recording.capture_env is on; nil records none.
	CapturedEnv func(allow []string, overrides map[string]string) map[string]string
	// Sandbox says how a project's allowed commands are confined: its root
	// and settings in, the sandbox out. Nil runs every command unconfined
	// (and the gate then leaves code-running commands to the client).
	Sandbox func(root string, cfg *settings.Settings) Sandbox
	// Warn receives problems the person who started the server should see
	// (on stderr, never stdout). Nil discards them.
	Warn func(msg string)
	// ReloadDelay is how long a change to the settings must settle before it
	// is applied; zero means DefaultReloadDelay.
	ReloadDelay time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Server is cuff's MCP server. Create it with New and serve one client
// with Run.
type Server struct {
	opts Options
	sdk  *mcp.Server
	// connID stands for the conversation of calls whose client names none:
	// one connection is one agent session, recorded in a session of its own
	// (under per_conversation), with session-scoped approvals lasting as
	// long as the connection.
	connID string

	stop     context.Context // cancelled when Run is told to stop
	stopOnce func()

	mu        sync.Mutex
	cfg       *config           // the committed project's configuration; nil until found
	gen       *generation       // where runs are recorded now
	interim   *config           // the working directory's project, for listing tools before the roots are known
	asked     bool              // the client's roots were asked for
	scriptTs  map[string]string // the script tools offered, by name, with their descriptions
	client    string            // the client's name, for the sessions it starts
	seen      string            // the watched files' fingerprint at the last reload
	reloadErr string            // why the last change was not applied
	elicits   map[string]string // approval requests put to the client's user, by id, with their command
	watchDone chan struct{}     // closed when the watcher ended; nil when none runs
	// toolsGen counts changes to the tool list; listedGen is toolsGen as it
	// was when the client last listed the tools (listed is false before).
	toolsGen, listedGen uint64
	listed              bool

	calls   sync.Mutex
	idle    *sync.Cond
	running int
	closed  bool
}

// New builds a server. Open and Command are required.
func New(opts Options) (*Server, error) {
	if opts.Open == nil || opts.Command == nil {
		return nil, errors.New("mcpserver: Options.Open and Options.Command are required")
	}
	switch opts.ToolSeparator {
	case "":
		opts.ToolSeparator = SeparatorDot
	case SeparatorDot, SeparatorUnderscore:
	default:
		return nil, fmt.Errorf("tool separator %q: use %q or %q", opts.ToolSeparator, SeparatorDot, SeparatorUnderscore)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ReloadDelay <= 0 {
		opts.ReloadDelay = DefaultReloadDelay
	}
	s := &Server{opts: opts, connID: "mcp_" + strings.TrimPrefix(transcript.NewCallID(), "cuff_"), scriptTs: map[string]string{}}
	s.idle = sync.NewCond(&s.calls)
	s.stop, s.stopOnce = context.WithCancel(context.Background())
	s.sdk = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "cuff: recorded, gated bash", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions: instructions(opts.ToolSeparator),
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{ListChanged: true},
				Resources: &mcp.ResourceCapabilities{},
			},
		})
	s.sdk.AddReceivingMiddleware(s.listMiddleware)
	s.addTools()
	return s, nil
}

// Run serves one client over t until the client goes away or ctx is done,
// then ends the commands still running, records their outcome and
// finalizes the session with status shutdown. A stop through ctx is a
// clean shutdown and returns nil.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	defer s.stopOnce()
	if s.opts.Dir != "" {
		if _, err := s.commit(ctx, s.opts.Dir, ""); err != nil {
			s.warn(err.Error())
		}
	}
	ss, err := s.sdk.Connect(ctx, t, nil)
	if err != nil {
		s.shutdown()
		return fmt.Errorf("connect: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err = <-ended:
	case <-ctx.Done():
		s.stopOnce() // end running commands before the connection closes
		go ss.Close()
		select {
		case <-ended:
		case <-time.After(shutdownGrace):
		}
		err = nil
	}
	s.shutdown()
	if err != nil && !clientGone(err) {
		return fmt.Errorf("mcp session: %w", err)
	}
	return nil
}

// shutdown ends the running calls, waits for them to be recorded and
// finalizes the sessions.
func (s *Server) shutdown() {
	s.stopOnce()
	s.calls.Lock()
	s.closed = true
	for s.running > 0 {
		s.idle.Wait()
	}
	s.calls.Unlock()
	s.mu.Lock()
	done := s.watchDone
	s.mu.Unlock()
	if done != nil {
		<-done
	}
	s.mu.Lock()
	gen, cfg := s.gen, s.cfg
	s.gen = nil
	s.mu.Unlock()
	if gen != nil {
		gen.retire(transcript.StatusShutdown)
	}
	if cfg != nil {
		cfg.log().Info("Server stopped", "status", transcript.StatusShutdown)
	}
}

// enter registers a running call; the returned context ends when the
// server stops. ok is false once the server is shutting down.
func (s *Server) enter(ctx context.Context) (context.Context, func(), bool) {
	s.calls.Lock()
	defer s.calls.Unlock()
	if s.closed {
		return ctx, func() {}, false
	}
	s.running++
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(s.stop, cancel)
	return ctx, func() {
		unhook()
		cancel()
		s.calls.Lock()
		s.running--
		if s.running == 0 {
			s.idle.Broadcast()
		}
		s.calls.Unlock()
	}, true
}

func (s *Server) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

// noticeNeeded reports whether a notification the SDK sends of its own
// accord is worth sending: notifications/tools/list_changed only when the
// tools changed after the client last listed them (a list the client has
// not asked for yet, or has just been given, needs no notice).
func (s *Server) noticeNeeded(method string) bool {
	if method != "notifications/tools/list_changed" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listed && s.toolsGen > s.listedGen
}

// toolName is the registered name of one of the bash_recorder tools.
func (s *Server) toolName(tool string) string {
	return "bash_recorder" + s.opts.ToolSeparator + tool
}

func instructions(sep string) string {
	return "Run shell commands with bash_recorder" + sep + "execute instead of a built-in shell tool: " +
		"every run is recorded for audit and risky commands wait for a person's approval. " +
		"A denied command comes back as an error with the reason; do not retry it unchanged."
}

// clientGone reports errors that only say the client went away: closing
// the connection, even in the middle of a request, is how clients leave.
// Writing an answer to a client that closed its end fails with EPIPE (or
// ECONNRESET when its stdio is a socket).
func clientGone(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}
