package mcpserver

import (
	"log/slog"
	"sync"

	"github.com/cuff-dev/cuff/recorder"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// defaultAgent names the agent of sessions whose client did not say who it is.
const defaultAgent = "mcp-client"

// generation records runs under one load of the settings. When the settings
// change it is retired: the sessions it wrote are finalized (or left open
// for the next generation) once its last running command is recorded, so
// that no run ends up after its session's end.
type generation struct {
	mu       sync.Mutex
	log      *slog.Logger
	opts     recorder.Options
	rec      *recorder.Recorder // made on first use, when the client's name is known
	sessions map[string]bool    // every session written
	running  int
	retired  bool
	status   string // the status to end the sessions with; "" leaves them open
	done     bool
	runs     int64
}

// newGeneration starts recording under c.
func (s *Server) newGeneration(c *config) *generation {
	cfg := c.settings()
	return &generation{
		log: c.log(),
		opts: recorder.Options{
			Store: c.proj.Store, Mode: string(cfg.Recording.SessionMode), Source: transcript.SourceMCP,
			WorkingDirectory: c.root, CuffVersion: s.opts.Version, Disabled: !cfg.Recording.Enabled,
			StateDir: s.opts.StateDir, Now: s.opts.Now,
			Warn: func(msg string) {
				s.warn(msg)
				c.log().Warn(msg, "degraded", true)
			},
		},
		sessions: map[string]bool{},
	}
}

// recorder returns the generation's recorder, made for agent on first use.
// g.mu is held.
func (g *generation) recorder(agent string) *recorder.Recorder {
	if g.rec == nil {
		if agent == "" {
			agent = defaultAgent
		}
		o := g.opts
		o.Agent = agent
		g.rec = recorder.New(o)
	}
	return g.rec
}

// sessionFor returns the id of the session a call with correlation c is
// recorded in, starting it when there is none yet, so that an approval
// request can be recorded before the command's own events. It is "" when
// nothing is recorded.
func (g *generation) sessionFor(c recorder.Correlation, agent string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.opts.Disabled || g.done {
		return ""
	}
	key := recorder.GroupKey(g.opts.Mode, g.opts.Source, g.opts.Now(), c)
	start := &transcript.SessionStart{Agent: agent, Source: g.opts.Source, WorkingDirectory: g.opts.WorkingDirectory,
		CuffVersion: g.opts.CuffVersion}
	if start.Agent == "" {
		start.Agent = defaultAgent
	}
	// The recorder finds the same session under the same key for the run.
	w, _, err := g.opts.Store.Current(key, session.CurrentOptions{Start: start, ConversationID: c.ConversationID, Now: g.opts.Now()})
	if err != nil {
		g.opts.Warn("could not start a session for the approval request: " + err.Error())
		return ""
	}
	id := w.ID()
	_ = w.Detach()
	g.sessions[id] = true
	return id
}

// pendingRun is a recorded start whose outcome is not yet recorded.
type pendingRun struct {
	g *generation
	p *recorder.Pending
}

// begin records the start of a run.
func (g *generation) begin(c recorder.Correlation, agent string, start *transcript.BashStart) *pendingRun {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running++
	g.done = false // a run that raced a retirement is recorded, then its session ends again
	return &pendingRun{g: g, p: g.recorder(agent).Begin(c, start)}
}

// finish records the run's outcome and returns the bash_run event's id and
// the session's ("" when not recorded).
func (r *pendingRun) finish(run *transcript.BashRun) (eventID, sessionID string) {
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	eventID = r.p.Finish(run)
	if eventID != "" {
		sessionID = g.rec.SessionID()
		g.sessions[sessionID] = true
		g.runs++
	}
	g.running--
	if g.retired && g.running == 0 {
		g.end()
	}
	return eventID, sessionID
}

// retire stops using the generation: its sessions end with status (or stay
// open for the next generation when status is "") once no run is left.
func (g *generation) retire(status string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.retired {
		return
	}
	g.retired, g.status = true, status
	if g.running == 0 {
		g.end()
	}
}

// end finalizes the generation's sessions. g.mu is held.
func (g *generation) end() {
	if g.done {
		return
	}
	g.done = true
	current := ""
	if g.rec != nil {
		current = g.rec.SessionID()
		if err := g.rec.Close(g.status); err != nil {
			g.opts.Warn("could not finalize session " + current + ": " + err.Error())
		} else if current != "" && g.status != "" {
			g.log.Info("Session finalized", "session_id", current, "status", g.status, "commands", g.runs)
		}
	}
	if g.status == "" {
		return
	}
	for id := range g.sessions {
		if id == current || id == "" {
			continue
		}
		g.closeOther(id)
	}
}

// closeOther ends a session the generation wrote to earlier (another
// conversation's) unless it has ended already.
func (g *generation) closeOther(id string) {
	m, err := g.opts.Store.Find(id)
	if err != nil || m.Ended {
		return
	}
	w, err := g.opts.Store.Resume(id)
	if err != nil {
		g.opts.Warn("could not finalize session " + id + ": " + err.Error())
		return
	}
	if err := w.Close(g.status); err != nil {
		g.opts.Warn("could not finalize session " + id + ": " + err.Error())
	}
}

// sessionID is the session the generation writes now, "" before its first run.
func (g *generation) sessionID() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rec == nil {
		return ""
	}
	return g.rec.SessionID()
}
