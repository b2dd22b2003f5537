package claude

import (
	"bytes"
	"encoding/json"
	"strings"
)

// line is one record of a transcript. Every field is optional: records of
// different types and Claude Code versions fill different ones.
type line struct {
	Type             string         `json:"type"`
	Subtype          string         `json:"subtype"`
	UUID             string         `json:"uuid"`
	ParentUUID       string         `json:"parentUuid"`
	IsSidechain      bool           `json:"isSidechain"`
	IsMeta           bool           `json:"isMeta"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	AgentID          string         `json:"agentId"`
	SessionID        string         `json:"sessionId"`
	CWD              string         `json:"cwd"`
	GitBranch        string         `json:"gitBranch"`
	Timestamp        string         `json:"timestamp"`
	Message          *message       `json:"message"`
	ToolUseResult    *toolUseResult `json:"toolUseResult"`
	Summary          string         `json:"summary"`
	Content          content        `json:"content"`
	Data             *progressData  `json:"data"`
	ParentToolUseID  string         `json:"parentToolUseID"`
	Error            *apiError      `json:"error"`
	Operation        string         `json:"operation"`
}

// message is the model message a user or assistant record carries.
type message struct {
	ID      string  `json:"id"`
	Role    string  `json:"role"`
	Model   string  `json:"model"`
	Content content `json:"content"`
	Usage   *usage  `json:"usage"`
}

// usage is the token count of an assistant message.
type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// toolUseResult is the structured output next to a tool_result. It is a
// string for errors ("User rejected tool use"); that decodes as empty.
type toolUseResult struct {
	Stdout           string `json:"stdout"`
	Stderr           string `json:"stderr"`
	Interrupted      bool   `json:"interrupted"`
	BackgroundTaskID string `json:"backgroundTaskId"`
	AgentID          string `json:"agentId"`
	Status           string `json:"status"`
	IsAsync          bool   `json:"isAsync"`
}

// progressData is the payload of a progress record; agent_progress nests
// a sub-agent's record in Message.
type progressData struct {
	Type    string `json:"type"`
	AgentID string `json:"agentId"`
	Prompt  string `json:"prompt"`
	Message *line  `json:"message"`
}

// apiError is the error of a system/api_error record.
type apiError struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// block is one content block of a message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   content         `json:"content"`
	IsError   bool            `json:"is_error"`
}

// content is a message's content: a plain string or a list of blocks.
type content struct {
	Text   string
	Blocks []block
}

// UnmarshalJSON accepts a string, an array of blocks, or anything else
// (which leaves the content empty).
func (c *content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		return json.Unmarshal(b, &c.Text)
	case '[':
		return json.Unmarshal(b, &c.Blocks)
	}
	return nil
}

// blocks returns the content as blocks: a string is one text block.
func (c *content) blocks() []block {
	if c.Blocks != nil || c.Text == "" {
		return c.Blocks
	}
	return []block{{Type: "text", Text: c.Text}}
}

// imagePlaceholder stands for an image in text.
const imagePlaceholder = "[image]"

// text joins the text of the content: text blocks as they are, images as a
// placeholder, other blocks left out.
func (c *content) text() string {
	if c.Blocks == nil {
		return c.Text
	}
	var parts []string
	for i := range c.Blocks {
		b := &c.Blocks[i]
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "document":
			parts = append(parts, imagePlaceholder)
		case "tool_result":
			parts = append(parts, b.Content.text())
		}
	}
	return strings.Join(parts, "\n")
}
