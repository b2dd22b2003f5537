package claude

import (
	"strconv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// link ties a sub-agent's records to the delegation they happen inside.
type link struct {
	agentID  string
	callID   string // the delegation's call id: the agent's events' parent_call_id
	lastText string // the agent's last answer, the result of a synthetic delegation
}

func (lk *link) context() context { return context{agentID: lk.agentID, parentCallID: lk.callID} }

// shortIDLength is how much of a record's uuid names an inline sub-agent.
const shortIDLength = 8

// resolve finds who a top-level record belongs to: the main agent, or the
// sub-agent of a sidechain.
func (d *Decoder) resolve(l *line) context {
	if d.fixed != nil { // a sub-agent's file read for its parent
		return d.fixed.context()
	}
	if !l.IsSidechain {
		return context{}
	}
	lk := d.linkOf(l)
	if l.AgentID == "" && l.UUID != "" {
		d.links[l.UUID] = lk
	}
	return lk.context()
}

// linkOf finds the sub-agent of a sidechain record: by its agentId (newer
// versions), else by following parentUuid to the chain's first record.
func (d *Decoder) linkOf(l *line) *link {
	if l.AgentID != "" {
		if lk := d.agents[l.AgentID]; lk != nil {
			return lk
		}
		lk := d.linkTask(l, l.AgentID)
		d.agents[l.AgentID] = lk
		return lk
	}
	if l.ParentUUID != "" {
		if lk := d.links[l.ParentUUID]; lk != nil {
			return lk
		}
	}
	return d.linkTask(l, "")
}

// linkTask links the first record of a sub-agent to the delegation that
// started it: the open Task whose prompt is the record's text, else the
// oldest open Task not yet linked. With none (a sub-agent file read on its
// own) it opens a delegation for the sub-agent.
func (d *Decoder) linkTask(l *line, agentID string) *link {
	text := ""
	if l.Type == "user" && l.Message != nil {
		text = strings.TrimSpace(l.Message.Content.text())
	}
	if agentID == "" {
		agentID = "sidechain-" + d.shortID(l.UUID)
	}
	var found *task
	if text != "" {
		for _, t := range d.tasks {
			if !t.linked && t.prompt == text {
				found = t
				break
			}
		}
	}
	if found == nil && l.ParentUUID == "" && l.Type == "user" {
		for _, t := range d.tasks {
			if !t.linked && !t.done {
				found = t
				break
			}
		}
	}
	if found != nil {
		found.linked, found.agentID = true, agentID
		return &link{agentID: agentID, callID: found.callID}
	}
	return d.openSynthetic(agentID, text, d.timeOf(l))
}

// openSynthetic opens a delegation for a sub-agent whose parent's call is
// not in the file; Close ends it.
func (d *Decoder) openSynthetic(agentID, task string, ts time.Time) *link {
	lk := &link{agentID: agentID, callID: "cuff_" + agentID}
	d.synthetic = append(d.synthetic, lk)
	d.flushMessage()
	d.push(d.event(ts, &transcript.Delegation{Phase: transcript.PhaseStart, SubAgentID: agentID, Task: task}, context{}, lk.callID))
	return lk
}

// progressContext is the sub-agent of an agent_progress record: its
// agentId, inside the Task call named by parentToolUseID.
func (d *Decoder) progressContext(agentID, parentCallID string) context {
	key := agentID
	if key == "" {
		key = "call:" + parentCallID
	}
	if lk := d.agents[key]; lk != nil {
		return lk.context()
	}
	if agentID == "" {
		agentID = "agent-" + d.shortID(parentCallID)
	}
	var lk *link
	if parentCallID == "" {
		lk = d.openSynthetic(agentID, "", d.lastTS)
	} else {
		lk = &link{agentID: agentID, callID: parentCallID}
		for _, t := range d.tasks {
			if t.callID == parentCallID {
				t.linked, t.agentID = true, agentID
			}
		}
	}
	d.agents[key] = lk
	return lk.context()
}

// noteText remembers a sub-agent's latest answer, the result of a
// delegation the decoder opened itself.
func (d *Decoder) noteText(ctx context, text string) {
	if ctx.agentID == "" {
		return
	}
	for _, lk := range d.synthetic {
		if lk.agentID == ctx.agentID {
			lk.lastText = text
		}
	}
}

// shortID shortens an id for a sub-agent name; an empty id gets the line
// number.
func (d *Decoder) shortID(id string) string {
	if id == "" {
		return "l" + strconv.Itoa(d.stats.Lines)
	}
	if len(id) > shortIDLength {
		return id[len(id)-shortIDLength:]
	}
	return id
}
