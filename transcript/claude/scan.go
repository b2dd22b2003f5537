package claude

import (
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// The records' fields as the scanner reads them (see scanLine). Each
// struct of lines.go has its list; the numbers are positions in it.
var (
	lineFields = stream.NewFields("type", "subtype", "uuid", "parentUuid", "isSidechain", "isMeta",
		"isCompactSummary", "agentId", "sessionId", "cwd", "gitBranch", "timestamp", "message",
		"toolUseResult", "summary", "content", "data", "parentToolUseID", "error", "operation")
	messageFields       = stream.NewFields("id", "role", "model", "content", "usage")
	usageFields         = stream.NewFields("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
	toolUseResultFields = stream.NewFields("stdout", "stderr", "interrupted", "backgroundTaskId", "agentId", "status", "isAsync")
	progressFields      = stream.NewFields("type", "agentId", "prompt", "message")
	apiErrorFields      = stream.NewFields("status", "message")
	blockFields         = stream.NewFields("type", "text", "thinking", "id", "name", "input", "tool_use_id", "content", "is_error")
)

// scanLine reads a record with the scanner, as encoding/json would read the
// same line cut as the scanner cuts it, skipping every field the decoder
// does not use without decoding it. It reports false when it cannot (the
// line is then decoded with encoding/json; see stream.Scanner).
func scanLine(s *stream.Scanner, l *line) bool {
	i := s.Space(0)
	end, ok := scanRecord(s, i, l)
	return ok && s.End(end)
}

func scanRecord(s *stream.Scanner, i int, l *line) (int, bool) {
	return s.Members(i, lineFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.Interned(v, &l.Type)
		case 1:
			return s.Interned(v, &l.Subtype)
		case 2:
			return s.String(v, &l.UUID)
		case 3:
			return s.String(v, &l.ParentUUID)
		case 4:
			return s.Bool(v, &l.IsSidechain)
		case 5:
			return s.Bool(v, &l.IsMeta)
		case 6:
			return s.Bool(v, &l.IsCompactSummary)
		case 7:
			return s.Interned(v, &l.AgentID)
		case 8:
			return s.Interned(v, &l.SessionID)
		case 9:
			return s.Interned(v, &l.CWD)
		case 10:
			return s.Interned(v, &l.GitBranch)
		case 11:
			return s.String(v, &l.Timestamp)
		case 12:
			return object(s, v, &l.Message, scanMessage)
		case 13:
			return object(s, v, &l.ToolUseResult, scanToolUseResult)
		case 14:
			return s.String(v, &l.Summary)
		case 15:
			return scanContent(s, v, &l.Content)
		case 16:
			return object(s, v, &l.Data, scanProgress)
		case 17:
			return s.String(v, &l.ParentToolUseID)
		case 18:
			return object(s, v, &l.Error, scanAPIError)
		case 19:
			return s.Interned(v, &l.Operation)
		}
		return s.Skip(v)
	})
}

// object reads a value into a pointer to a struct as encoding/json does:
// null makes it nil; an object is read into it (allocated when nil) with
// fill; anything else allocates it and leaves it empty (a mismatch).
func object[T any](s *stream.Scanner, v int, p **T, fill func(*stream.Scanner, int, *T) (int, bool)) (int, bool) {
	switch s.Byte(v) {
	case 'n':
		*p = nil
		return s.Null(v)
	case '{':
		if *p == nil {
			*p = new(T)
		}
		return fill(s, v, *p)
	}
	if *p == nil {
		*p = new(T)
	}
	return s.Mismatch(v)
}

func scanMessage(s *stream.Scanner, i int, m *message) (int, bool) {
	return s.Members(i, messageFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.String(v, &m.ID)
		case 1:
			return s.Interned(v, &m.Role)
		case 2:
			return s.Interned(v, &m.Model)
		case 3:
			return scanContent(s, v, &m.Content)
		case 4:
			return object(s, v, &m.Usage, scanUsage)
		}
		return s.Skip(v)
	})
}

func scanUsage(s *stream.Scanner, i int, u *usage) (int, bool) {
	return s.Members(i, usageFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.Int64(v, &u.InputTokens)
		case 1:
			return s.Int64(v, &u.OutputTokens)
		case 2:
			return s.Int64(v, &u.CacheCreationInputTokens)
		case 3:
			return s.Int64(v, &u.CacheReadInputTokens)
		}
		return s.Skip(v)
	})
}

func scanToolUseResult(s *stream.Scanner, i int, r *toolUseResult) (int, bool) {
	return s.Members(i, toolUseResultFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.String(v, &r.Stdout)
		case 1:
			return s.String(v, &r.Stderr)
		case 2:
			return s.Bool(v, &r.Interrupted)
		case 3:
			return s.String(v, &r.BackgroundTaskID)
		case 4:
			return s.Interned(v, &r.AgentID)
		case 5:
			return s.Interned(v, &r.Status)
		case 6:
			return s.Bool(v, &r.IsAsync)
		}
		return s.Skip(v)
	})
}

func scanProgress(s *stream.Scanner, i int, p *progressData) (int, bool) {
	return s.Members(i, progressFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.Interned(v, &p.Type)
		case 1:
			return s.Interned(v, &p.AgentID)
		case 2:
			return s.String(v, &p.Prompt)
		case 3:
			return object(s, v, &p.Message, scanRecord)
		}
		return s.Skip(v)
	})
}

func scanAPIError(s *stream.Scanner, i int, e *apiError) (int, bool) {
	return s.Members(i, apiErrorFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.Int(v, &e.Status)
		case 1:
			return s.String(v, &e.Message)
		}
		return s.Skip(v)
	})
}

// scanContent reads a content as its UnmarshalJSON does: a string is its
// text, an array its blocks (decoded by encoding/json, so strictly: a
// block of the wrong shape stops the line), anything else nothing.
func scanContent(s *stream.Scanner, v int, c *content) (int, bool) {
	switch s.Byte(v) {
	case '"':
		return s.String(v, &c.Text)
	case '[':
		return s.Strict(func() (int, bool) {
			c.Blocks = []block{}
			return s.Elements(v, func(e int) (int, bool) {
				c.Blocks = append(c.Blocks, block{})
				switch s.Byte(e) {
				case '{':
					return scanBlock(s, e, &c.Blocks[len(c.Blocks)-1])
				case 'n':
					return s.Null(e) // an empty block
				}
				return s.Mismatch(e)
			})
		})
	}
	return s.Skip(v)
}

func scanBlock(s *stream.Scanner, i int, b *block) (int, bool) {
	return s.Members(i, blockFields, func(f, v int) (int, bool) {
		switch f {
		case 0:
			return s.Interned(v, &b.Type)
		case 1:
			return s.String(v, &b.Text)
		case 2:
			return s.String(v, &b.Thinking)
		case 3:
			return s.String(v, &b.ID)
		case 4:
			return s.Interned(v, &b.Name)
		case 5:
			return s.Raw(v, &b.Input)
		case 6:
			return s.String(v, &b.ToolUseID)
		case 7:
			return scanContent(s, v, &b.Content)
		case 8:
			return s.Bool(v, &b.IsError)
		}
		return s.Skip(v)
	})
}
