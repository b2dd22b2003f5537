package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"
)

// Run shows the TUI until the person quits or ctx ends. Extra program
// options (input, output, size) are for tests.
func Run(ctx context.Context, opts Options, progOpts ...tea.ProgramOption) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts.Context = ctx
	p := tea.NewProgram(New(opts), append([]tea.ProgramOption{tea.WithContext(ctx)}, progOpts...)...)
	_, err := p.Run()
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil
	}
	return err
}
