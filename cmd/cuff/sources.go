package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// fillBudget bounds how long `record list` spends counting foreign
// sessions it has not counted before; the rest show "?" until a later run.
const fillBudget = 3 * time.Second

// readGCPercent is the garbage collector's target while a command reads a
// whole history (record stats, indexing for search): what it allocates
// lives for a line, and collecting a fourth as often saves CPU time
// (`record stats` over a 958 MB history: 1.8 CPU-s instead of 2.3, peak
// RSS about 120 MB instead of 65; indexing it for search: 13.0 CPU-s
// instead of 14.0, 84 MB instead of 56).
const readGCPercent = 400

// collectLess sets readGCPercent until the returned func is called,
// unless GOGC says otherwise.
func (a *app) collectLess() (restore func()) {
	if a.getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(readGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// foreignSources are the agents' transcript folders the settings switch on.
func (a *app) foreignSources() []*session.FolderSource {
	ws, err := a.openWorkspace()
	if err != nil {
		return nil
	}
	return ws.ForeignSources()
}

// The values --source takes beyond the sources' own names (cuff, claude,
// codex, each alone): this project's sessions joined with the agents'
// transcripts (the default), and every session, joined.
const (
	sourceProject = "project"
	sourceAll     = session.JoinedSourceName
)

// sourceNames are the values --source takes.
var sourceNames = []string{sourceProject, sourceAll, session.NativeSourceName, session.ClaudeSourceName, session.CodexSourceName}

// sourceHelp describes --source.
const sourceHelp = "where sessions come from: project (this project's, each conversation joined with the agent's own transcript), " +
	"all (every session, joined), or one record alone: cuff (this project's store), claude, codex"

// checkSource checks a --source value and that the source is switched on.
func (a *app) checkSource(source string) error {
	known := false
	for _, n := range sourceNames {
		known = known || n == source
	}
	if !known {
		return &usageError{msg: fmt.Sprintf("unknown source %q", source),
			hint: "Hint: --source takes one of " + strings.Join(sourceNames, ", ")}
	}
	if source == session.ClaudeSourceName || source == session.CodexSourceName {
		if !hasSource(a.foreignSources(), source) {
			return &usageError{msg: fmt.Sprintf("the %s source is switched off", source),
				hint: fmt.Sprintf("Hint: set sources.%s: true in .cuff/settings.yml", source)}
		}
	}
	return nil
}

// listInfos lists the sessions of a --source, newest first, started since
// the given time, at most limit (0: all). By default (project) and with
// all, a conversation that both the agent and cuff recorded is one
// session (see session.Joined); the project's view leaves out the agents'
// sessions that cuff did not record here. With count, sessions not counted
// before get exact counts within fillBudget (a caller that reads every
// session anyway, such as stats, leaves it off).
func (a *app) listInfos(ctx context.Context, source string, since time.Time, limit int, count bool) ([]session.Info, error) {
	if err := a.checkSource(source); err != nil {
		return nil, err
	}
	ws, err := a.openWorkspace()
	if err != nil {
		return nil, err
	}
	var out []session.Info
	var fill func(context.Context, []session.Info) error
	switch source {
	case sourceProject, sourceAll:
		j := ws.Joined()
		infos, err := j.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, in := range infos {
			if source == sourceAll || recordedHere(in) {
				out = append(out, in)
			}
		}
		fill = j.Fill
	case session.NativeSourceName:
		all, err := ws.Store.Sessions()
		if err != nil {
			return nil, err
		}
		for _, m := range all {
			out = append(out, ws.Store.InfoOf(m))
		}
	default:
		for _, f := range ws.ForeignSources() {
			if f.Name() == source {
				if out, err = f.List(ctx); err != nil {
					return nil, err
				}
				fill = f.Fill
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	out = filterInfos(out, since, limit)
	if count && fill != nil {
		fctx, cancel := context.WithTimeout(ctx, fillBudget)
		_ = fill(fctx, out) // what is not counted in time shows as unknown
		cancel()
	}
	return out, nil
}

// recordedHere reports whether the project's store holds (a part of) the
// session.
func recordedHere(in session.Info) bool {
	if in.Source == session.NativeSourceName || in.Source == "" {
		return true
	}
	for _, p := range in.Parts {
		if p.Source == session.NativeSourceName {
			return true
		}
	}
	return false
}

func filterInfos(infos []session.Info, since time.Time, limit int) []session.Info {
	var out []session.Info
	for _, in := range infos {
		if !since.IsZero() && in.Started.Before(since) {
			continue
		}
		out = append(out, in)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}

func hasSource(sources []*session.FolderSource, name string) bool {
	for _, f := range sources {
		if f.Name() == name {
			return true
		}
	}
	return false
}

// findSession finds a session by its id or any unique part of it. By
// default (project, all) that is a session as listed, one per
// conversation: a native session's id, a Claude Code or Codex session's
// (claude:<uuid>, codex:<uuid>, with or without the prefix) or a part of
// either finds the conversation's joined session. With cuff, claude or
// codex it is that record alone. It returns what a listing shows of it
// (counts may be Unknown) and the source that reads it.
func (a *app) findSession(ctx context.Context, id, source string) (session.Info, session.Source, error) {
	if err := a.checkSource(source); err != nil {
		return session.Info{}, nil, err
	}
	ws, err := a.openWorkspace()
	if err != nil {
		return session.Info{}, nil, err
	}
	switch source {
	case sourceProject, sourceAll:
		j := ws.Joined()
		info, err := j.Find(ctx, id)
		return info, j, err
	case session.NativeSourceName:
		m, err := ws.Store.Find(id)
		if err != nil {
			return session.Info{}, nil, err
		}
		return ws.Store.InfoOf(m), ws.Store.Source(), nil
	}
	var only []session.Source
	for _, f := range ws.ForeignSources() {
		if f.Name() == source {
			only = append(only, f)
		}
	}
	return session.FindIn(ctx, only, id)
}

// resolveSession is findSession with exact counts (a session not counted
// before is counted now, briefly) and a function that streams the
// session's events.
func (a *app) resolveSession(ctx context.Context, id, source string) (session.Info, func(func(*transcript.Event) error) error, error) {
	info, src, err := a.findSession(ctx, id, source)
	if err != nil {
		return session.Info{}, nil, err
	}
	if f, ok := src.(interface {
		Fill(context.Context, []session.Info) error
	}); ok && info.Events == session.Unknown {
		filled := []session.Info{info}
		_ = f.Fill(ctx, filled) // exact counts for what a listing left as "?"
		info = filled[0]
	}
	return info, func(fn func(*transcript.Event) error) error { return src.Read(ctx, info.ID, fn) }, nil
}

// exportDecoded exports one session that is not a file of the store (a
// joined session, a Claude Code or Codex session), decoded as it is read,
// in any export format: one pass over its records, with no counting
// before it.
func (a *app) exportDecoded(ctx context.Context, info session.Info, src session.Source, format export.Format, output string) error {
	read := func(fn func(*transcript.Event) error) error { return src.Read(ctx, info.ID, fn) }
	reader := func(_ string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
		return transcript.ReadStats{}, read(fn)
	}
	write := func(fn func(io.Writer) error) error {
		if output == "" || output == "-" {
			return fn(a.stdout.Forward)
		}
		return a.writeOutput(output, fn)
	}
	switch format {
	case export.FormatJSON, export.FormatJSONL:
		return write(func(w io.Writer) error {
			rw, err := export.NewRawWriter(w, format)
			if err != nil {
				return err
			}
			if err := read(rw.WriteEvent); err != nil {
				return err
			}
			_, err = rw.Close()
			return err
		})
	case export.FormatSQLite:
		db, err := export.NewSQLiteWriter(ctx, output)
		if err != nil {
			return err
		}
		_, err = export.WriteSessions(ctx, db, []session.Info{info}, reader)
		return err
	}
	return write(func(w io.Writer) error {
		var sink export.Sink
		var err error
		switch format {
		case export.FormatCSV:
			sink, err = export.NewCSVWriter(w)
		case export.FormatHTML:
			sink, err = export.NewHTMLWriter(w, export.HTMLOptions{Location: time.Local})
		default:
			sink = export.NewMarkdownSink(w, export.MarkdownOptions{Location: time.Local})
		}
		if err != nil {
			return err
		}
		_, err = export.WriteSessions(ctx, sink, []session.Info{info}, reader)
		return err
	})
}

// statsOf reads every listed session, from whichever source holds it, into
// one set of statistics, with disk use by source; each session's figures
// are cached in the user's cache directory.
func (a *app) statsOf(ctx context.Context, infos []session.Info) (*session.CommandStats, error) {
	ws, err := a.openWorkspace()
	if err != nil {
		return nil, err
	}
	return session.StatsOf(ctx, append([]session.Source{ws.Joined()}, ws.Sources()...), infos, ws.StatsCache())
}
