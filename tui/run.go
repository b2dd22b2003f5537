package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"
)

// NewProgram builds the TUI's program, ending with ctx. The caller runs it
// and may feed it live messages (ApprovalMsg, NoticeMsg) with its Send from
// goroutines of its own. Extra program options (input, output, size) are
// for the terminal and for tests.
func NewProgram(ctx context.Context, opts Options, progOpts ...tea.ProgramOption) *tea.Program {
	opts.Context = ctx
	return tea.NewProgram(New(opts), append([]tea.ProgramOption{tea.WithContext(ctx)}, progOpts...)...)
}

// Finished turns what the program's Run returned into the TUI's result:
// quitting with ctrl+c, or because ctx ended, is a normal end.
func Finished(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil
	}
	return err
}

// Run shows the TUI until the person quits or ctx ends.
func Run(ctx context.Context, opts Options, progOpts ...tea.ProgramOption) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err := NewProgram(ctx, opts, progOpts...).Run()
	return Finished(ctx, err)
}
