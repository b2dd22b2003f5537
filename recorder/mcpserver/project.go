package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/scripts"
	"github.com/cuff-dev/cuff/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsKey names the roots request in a multi round-trip tool call.
const rootsKey = "cuff_roots"

// rootsTimeout bounds how long the server waits for the client's roots.
const rootsTimeout = 5 * time.Second

// multiRoundTripVersion is the first protocol version in which a server asks
// the client for input through the result of a call instead of a request.
const multiRoundTripVersion = "2026-07-28"

// config is what one load of a project's settings and policy gives the
// server. It is replaced, never changed, when the settings change.
type config struct {
	dir  string // the .cuff directory
	root string // the project root
	proj *Project
	// err is set when the settings or the store could not be used: every
	// tool call reports it until the files are fixed.
	err       error
	policy    *gate.Policy
	policyErr error
	runner    *runner.Runner
	broker    *approval.Broker
	scripts   *scripts.Cache // nil when the scripts plugin is off
	sandbox   Sandbox
	fprint    string // what the watched files held when loaded

	gatesMu sync.Mutex
	gates   map[string]*gate.Gate // by working directory
}

func (c *config) settings() *settings.Settings {
	if c.proj == nil || c.proj.Settings == nil {
		return settings.Defaults()
	}
	return c.proj.Settings
}

func (c *config) log() *slog.Logger {
	if c.proj == nil || c.proj.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.proj.Log
}

// usable returns the error that stops commands from running, if any.
func (c *config) usable() error {
	if c.err != nil {
		return c.err
	}
	if c.policyErr != nil {
		return c.policyErr
	}
	return nil
}

// load opens the project in the .cuff directory dir.
func (s *Server) load(dir string) *config {
	c := &config{dir: dir, root: filepath.Dir(dir), fprint: fingerprint(dir)}
	proj, err := s.opts.Open(dir)
	if err != nil {
		c.err = &configError{err: err}
		return c
	}
	c.proj = proj
	cfg := c.settings()
	c.policy, c.policyErr = gate.LoadPolicy(filepath.Join(dir, approval.PolicyFile))
	if c.policyErr != nil {
		c.policyErr = &configError{err: c.policyErr}
	}
	c.runner = runner.NewRunner(cfg.Execution.MaxConcurrent)
	c.broker = approval.New(s.opts.StateDir)
	c.broker.Timeout = cfg.Approvals.Timeout
	c.broker.Warn = func(msg string) { c.log().Warn(msg) }
	c.broker.OpenStore = func(ref approval.SessionRef) (*session.Store, error) {
		if ref.Dir == proj.Store.Dir {
			return proj.Store, nil
		}
		p, err := s.opts.Open(ref.Dir)
		if err != nil {
			return nil, err
		}
		return p.Store, nil
	}
	if cfg.PluginEnabled("scripts") {
		c.scripts = scripts.NewCache(scripts.FromSettings(c.root, cfg.Scripts), s.opts.Now)
	}
	if s.opts.Sandbox != nil {
		c.sandbox = s.opts.Sandbox(c.root, cfg)
		if !c.sandbox.on() {
			c.log().Warn("allowed commands run outside the sandbox", "reason", c.sandbox.Setup.Reason())
		}
	}
	return c
}

// configError is a settings or policy file the server cannot use.
type configError struct{ err error }

func (e *configError) Error() string {
	return e.err.Error() + "; fix the file (cuff picks up the change while it runs) or run 'cuff init --print' to see every settings key"
}
func (e *configError) Unwrap() error { return e.err }

// commit settles which project the server works for: the store named by
// explicit, else the one of the client's root, else the working
// directory's. It happens once; later calls return the committed project.
func (s *Server) commit(ctx context.Context, explicit, root string) (*config, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg != nil {
		return s.cfg, nil
	}
	var dir string
	var err error
	switch {
	case explicit != "":
		dir, err = session.Locate(explicit, s.opts.WorkDir)
	case root != "":
		dir, err = session.Locate("", root)
	default:
		dir, err = session.Locate("", s.opts.WorkDir)
	}
	if err != nil {
		// A store that cannot be located is reported by every call.
		s.cfg = &config{dir: explicit, root: s.opts.WorkDir,
			err: fmt.Errorf("%w; start cuff mcp again with --dir naming a project folder or its .cuff directory", err)}
		return s.cfg, err
	}
	c := s.interim
	if c == nil || c.dir != dir {
		c = s.load(dir)
	}
	s.interim = nil
	s.cfg = c
	if c.err == nil {
		s.gen = s.newGeneration(c)
	}
	c.log().Info("Server started", "working_directory", c.root, "store", dir, "client", s.client)
	if s.watchDone == nil && !s.closing() {
		s.watchDone = make(chan struct{})
		go s.watch(dir)
	}
	s.syncScriptsLocked(c)
	return c, c.err
}

// current returns the committed configuration and generation, committing
// the project first if needed. A non-nil result is a multi round-trip
// answer that asks the client for its roots; the handler returns it as is.
func (s *Server) current(ctx context.Context, req *mcp.CallToolRequest) (*config, *generation, *mcp.CallToolResult) {
	s.mu.Lock()
	if s.cfg != nil {
		c, g := s.cfg, s.gen
		s.mu.Unlock()
		return c, g, nil
	}
	asked := s.asked
	s.noteClient(req.ClientInfo())
	s.mu.Unlock()
	root := ""
	if canListRoots(req.ClientCapabilities()) {
		switch res, ok := req.Params.InputResponses[rootsKey].(*mcp.ListRootsResult); {
		case ok:
			root = firstDir(res)
		case !asked && req.ProtocolVersion() >= multiRoundTripVersion:
			s.mu.Lock()
			s.asked = true
			s.mu.Unlock()
			return nil, nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsKey: &mcp.ListRootsParams{}}}
		case !asked:
			root = s.listRoots(ctx, req.Session)
		}
	}
	s.commit(ctx, "", root) // an unusable project is reported by the caller
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg, s.gen, nil
}

// listRoots asks a client of the initialize-era protocol for its roots and
// returns the first one that is a directory, "" when there is none.
func (s *Server) listRoots(ctx context.Context, ss *mcp.ServerSession) string {
	s.mu.Lock()
	s.asked = true
	s.mu.Unlock()
	if ss == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		s.warn(fmt.Sprintf("could not get the client's roots, using %s: %v", s.opts.WorkDir, err))
		return ""
	}
	return firstDir(res)
}

func canListRoots(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.RootsV2 != nil
}

// firstDir is the path of the first file:// root that is a directory.
func firstDir(res *mcp.ListRootsResult) string {
	if res == nil {
		return ""
	}
	for _, r := range res.Roots {
		if r == nil {
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" || !filepath.IsAbs(u.Path) {
			continue
		}
		if fi, err := os.Stat(u.Path); err == nil && fi.IsDir() {
			return filepath.Clean(u.Path)
		}
	}
	return ""
}

// noteClient remembers the client's name for the sessions it starts.
// s.mu is held.
func (s *Server) noteClient(info *mcp.Implementation) {
	if s.client == "" && info != nil && info.Name != "" {
		s.client = info.Name
	}
}

// listMiddleware settles the project before tools are listed, so that the
// list holds the project's scripts. Clients of the initialize-era protocol
// are asked for their roots; a client of the newer protocol can only be
// asked inside a call, so its list shows the working directory's scripts
// until the first call settles the project.
func (s *Server) listMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		lr, ok := req.(*mcp.ListToolsRequest)
		if !ok {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		committed, asked := s.cfg != nil, s.asked
		s.noteClient(lr.ClientInfo())
		s.mu.Unlock()
		switch {
		case committed:
			s.syncScripts()
		case s.opts.Dir != "":
			s.commit(ctx, s.opts.Dir, "")
		case canListRoots(lr.ClientCapabilities()) && lr.ProtocolVersion() >= multiRoundTripVersion:
			s.listInterim()
		case canListRoots(lr.ClientCapabilities()) && !asked:
			s.commit(ctx, "", s.listRoots(ctx, lr.Session))
		default:
			s.commit(ctx, "", "")
		}
		s.mu.Lock()
		gen := s.toolsGen // the list about to be made holds every change up to here
		s.mu.Unlock()
		res, err := next(ctx, method, req)
		if err == nil {
			s.mu.Lock()
			s.listed, s.listedGen = true, max(s.listedGen, gen)
			s.mu.Unlock()
		}
		return res, err
	}
}

// listInterim offers the working directory's scripts before the project is
// settled.
func (s *Server) listInterim() {
	dir, err := session.Locate("", s.opts.WorkDir)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg != nil {
		return
	}
	if s.interim == nil || s.interim.dir != dir {
		s.interim = s.load(dir)
	}
	s.syncScriptsLocked(s.interim)
}

// errNotReady is the answer to a call that arrives while the server shuts down.
var errNotReady = errors.New("cuff is shutting down; no new commands are started")
