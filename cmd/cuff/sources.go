package main

import (
	"context"
	"fmt"
	"io"
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

// foreignSources are the agents' transcript folders the settings switch on.
func (a *app) foreignSources() []*session.FolderSource {
	ws, err := a.openWorkspace()
	if err != nil {
		return nil
	}
	return ws.ForeignSources()
}

// sourceNames are the values --source takes.
var sourceNames = []string{session.NativeSourceName, session.ClaudeSourceName, session.CodexSourceName, "all"}

// listInfos lists the sessions of one source (or all), newest first,
// started since the given time, at most limit (0: all). With count, foreign
// sessions get exact counts within fillBudget (a caller that reads every
// session anyway, such as stats, leaves it off).
func (a *app) listInfos(ctx context.Context, source string, since time.Time, limit int, count bool) ([]session.Info, error) {
	known := false
	for _, n := range sourceNames {
		known = known || n == source
	}
	if !known {
		return nil, &usageError{msg: fmt.Sprintf("unknown source %q", source),
			hint: "Hint: --source takes one of " + strings.Join(sourceNames, ", ")}
	}
	s, err := a.openStore()
	if err != nil {
		return nil, err
	}
	foreign := a.foreignSources()
	if source != "all" && source != session.NativeSourceName && !hasSource(foreign, source) {
		return nil, &usageError{msg: fmt.Sprintf("the %s source is switched off", source),
			hint: fmt.Sprintf("Hint: set sources.%s: true in .cuff/settings.yml", source)}
	}
	var out []session.Info
	if source == session.NativeSourceName || source == "all" {
		all, err := s.Sessions()
		if err != nil {
			return nil, err
		}
		for _, m := range all {
			out = append(out, s.InfoOf(m))
		}
	}
	for _, f := range foreign {
		if source != f.Name() && source != "all" {
			continue
		}
		infos, err := f.List(ctx)
		if err != nil {
			return nil, err
		}
		infos = filterInfos(infos, since, limit)
		if count {
			fctx, cancel := context.WithTimeout(ctx, fillBudget)
			_ = f.Fill(fctx, infos) // what is not counted in time shows as unknown
			cancel()
		}
		out = append(out, infos...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return filterInfos(out, since, limit), nil
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

// findSession finds a session by id in any source: any unique part of a
// native id, or of a Claude Code or Codex session's (claude:<uuid>,
// codex:<uuid>, with or without the prefix). It returns what a listing
// shows of it (a foreign session's counts may be Unknown) and its source.
func (a *app) findSession(ctx context.Context, id string) (session.Info, session.Source, error) {
	s, err := a.openStore()
	if err != nil {
		return session.Info{}, nil, err
	}
	folders := a.foreignSources()
	others := make([]session.Source, len(folders))
	for i, f := range folders {
		others[i] = f
	}
	return session.FindAny(ctx, s, others, id)
}

// resolveSession is findSession with exact counts (a foreign session not
// counted before is counted now, briefly) and a function that streams
// the session's events.
func (a *app) resolveSession(ctx context.Context, id string) (session.Info, func(func(*transcript.Event) error) error, error) {
	info, src, err := a.findSession(ctx, id)
	if err != nil {
		return session.Info{}, nil, err
	}
	if f, ok := src.(*session.FolderSource); ok {
		filled := []session.Info{info}
		_ = f.Fill(ctx, filled) // exact counts for what a foreign listing left as "?"
		info = filled[0]
	}
	return info, func(fn func(*transcript.Event) error) error { return src.Read(ctx, info.ID, fn) }, nil
}

// exportForeign exports one Claude Code or Codex session, decoded from its
// transcript, in any export format: one pass over the transcript, with no
// counting before it.
func (a *app) exportForeign(ctx context.Context, id string, format export.Format, output string) error {
	info, src, err := a.findSession(ctx, id)
	if err != nil {
		return err
	}
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
	return session.StatsOf(ctx, ws.Sources(), infos, ws.StatsCache())
}
