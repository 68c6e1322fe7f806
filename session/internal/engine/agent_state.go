package engine

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
)

// A pane's state for whoever supervises it: the facts this process
// observed, given to agentstate.Classify, which decides. What the facts
// come from: the pane's row (its foreground program's name, dead or not,
// the alternate screen), its output stream (when it last printed, the
// last input this process sent), the commands run_command followed in
// it, the visible screen when it was read, and the kernel's word on the
// foreground program (see Foreground).

// AgentState is what a pane is doing: idle, working, blocked, done or
// unknown (see agentstate).
type AgentState struct {
	State  string
	Detail string // why, in a few words
	// Agent is the agent CLI the pane runs ("claude", "codex",
	// "gemini"), "" if none.
	Agent string
	// ExitStatus is what ended's status (done), when known.
	ExitStatus *int
	// Question is the question's text on screen (blocked), when read.
	Question string
}

// AgentStates are the states, as tools name them.
func AgentStates() []string {
	out := make([]string, len(agentstate.States))
	for i, st := range agentstate.States {
		out[i] = string(st)
	}
	return out
}

// agentMemory remembers the agent CLI found in each pane, with the pane's
// process then: a CLI busy drawing need not show its signature again.
type agentMemory struct{ m sync.Map } // pane -> agentSeen

type agentSeen struct{ pid, agent string }

func (am *agentMemory) load(p Pane) string {
	v, ok := am.m.Load(p.ID)
	if !ok {
		return ""
	}
	seen := v.(agentSeen)
	if seen.pid != p.PID {
		return ""
	}
	return seen.agent
}

func (am *agentMemory) store(p Pane, agent string) {
	if agent == "" {
		am.m.Delete(p.ID)
		return
	}
	am.m.Store(p.ID, agentSeen{pid: p.PID, agent: agent})
}

// paneFacts are the facts this process holds about p without asking
// tmux: its row, its output stream, its input and commands.
func (e *Engine) paneFacts(p Pane) agentstate.Facts {
	f := agentstate.Facts{Command: p.CurrentCommand, Dead: p.Dead, Agent: e.agents.load(p), Prompt: Prompt(e, p.ID)}
	if n, err := strconv.Atoi(p.DeadStatus); err == nil && p.Dead {
		f.DeadStatus = &n
	}
	st, ok := e.host.Stream(p.ID)
	if !ok {
		return f
	}
	in := st.LastInput()
	end, _ := st.Position()
	f.Output.Followed = e.host.Feeds(p.SessionID)
	if last := st.LastOutput(); !last.IsZero() {
		f.Output.Printed, f.Output.Quiet = true, time.Since(last)
	}
	if in.Sent {
		f.Input = agentstate.Input{Sent: true, Enter: in.Enter}
		if !in.Enter {
			f.Input.Typed = in.Typed
		}
		f.Output.SinceInput = in.Fed && end > in.Offset
		f.Run = LastRun(e, p.ID, in.Offset)
	}
	return f
}

// classify decides p's state from f, and remembers the agent found.
func (e *Engine) classify(p Pane, f agentstate.Facts) AgentState {
	r := agentstate.Classify(f)
	if !p.Dead {
		e.agents.store(p, r.Agent)
	}
	return AgentState{State: string(r.State), Detail: r.Detail, Agent: r.Agent, ExitStatus: r.Status, Question: r.Question}
}

// withForeground adds the kernel's word on p's foreground program, and
// returns it.
func (e *Engine) withForeground(ctx context.Context, p Pane, f *agentstate.Facts) Foreground {
	if p.Dead {
		return Foreground{}
	}
	fg := e.host.Foreground(ctx, p.PID, p.TTY)
	f.Foreground = agentstate.Foreground{Known: fg.Known, Reading: fg.Reading}
	return fg
}

// screenOf is the visible screen capture-pane -J read of p.
func screenOf(p Pane, lines []string) *agentstate.Screen {
	return &agentstate.Screen{Rows: paneread.Readable(lines, p.Width, p.CursorX, p.CursorY),
		CursorX: p.CursorX, CursorY: p.CursorY, Alternate: p.Alternate, Width: p.Width}
}

// PaneState returns the pane ref names, read fresh, its state and its
// foreground program: its row, its screen and (tmux 3.8) its OSC 133
// marks in one round trip, then the foreground program.
func (e *Engine) PaneState(ctx context.Context, ref PaneRef) (Pane, AgentState, Foreground, error) {
	t, err := e.host.PaneTarget(ref)
	if err != nil {
		return Pane{}, AgentState{}, Foreground{}, err
	}
	cmds := []controlmode.Command{e.host.PaneInfoCommand(t), CaptureCommand(CaptureArgs{Join: true}, t)}
	marks := e.host.Release().RecordsCommandMarks()
	if marks {
		cmds = append(cmds, MarksCommand(t))
	}
	rs, err := e.host.Exec(ctx, cmds...)
	if err != nil {
		return Pane{}, AgentState{}, Foreground{}, err
	}
	p, err := e.host.PaneInfoOf(rs[0], t)
	if err != nil {
		return Pane{}, AgentState{}, Foreground{}, err
	}
	f := e.paneFacts(p)
	f.Screen = screenOf(p, rs[1].Lines)
	if marks {
		if m, ok := ParseMarks(p.ID, strings.Join(rs[2].Lines, "")); ok {
			f.Marks = e.marksFacts(p.ID, m)
		}
	}
	fg := e.withForeground(ctx, p, &f)
	return p, e.classify(p, f), fg, nil
}

// marksFacts are m as the classifier takes them: a command ended after
// this process's last input to pane when tmux's end time (whole seconds)
// is not before it, or when this process sent pane no input: a command a
// person or a script typed has its status too. Only a command whose start
// tmux recorded counts.
func (e *Engine) marksFacts(pane string, m CommandMarks) agentstate.Marks {
	if !m.Seen {
		return agentstate.Marks{}
	}
	mk := agentstate.Marks{Known: true, Running: m.Running}
	if m.HasStatus {
		n := m.Status
		mk.Status = &n
	}
	// A shell's first prompt may carry an end mark (D) with no command
	// begun (C): no command ran.
	if !m.Running && !m.Ended.IsZero() && !m.Started.IsZero() {
		sent, at := false, time.Time{}
		if st, ok := e.host.Stream(pane); ok {
			in := st.LastInput()
			sent, at = in.Sent, in.At
		}
		mk.AfterInput = !sent || !m.Ended.Before(at.Truncate(time.Second))
	}
	return mk
}

// StateOfSnapshot is the state of the pane snap shows, from its screen;
// fg is what the kernel told of its foreground program.
func (e *Engine) StateOfSnapshot(ctx context.Context, snap PaneSnapshot, fg Foreground) AgentState {
	f := e.paneFacts(snap.Pane)
	f.Screen = &agentstate.Screen{Rows: snap.Lines, CursorX: snap.CursorX, CursorY: snap.CursorY, Alternate: snap.AlternateOn}
	f.Foreground = agentstate.Foreground{Known: fg.Known, Reading: fg.Reading}
	return e.classify(snap.Pane, f)
}

// listLooks bounds the panes of one listing that are looked at: their
// screens captured (in one round trip) and their foreground program asked
// of the kernel (over ssh, a line to the host each). Agent CLIs first;
// the panes past it are told from what this process knows.
const listLooks = 32

// ListStates returns the states of panes, read by a listing: a shell (not
// on the alternate screen) or a dead pane from what this process knows (no
// tmux); up to listLooks other panes, agent CLIs first, also from their
// screen (an agent's whole screen, another program's cursor row), captured
// in one round trip, and their foreground program. A pane that went away meanwhile is told from
// the rest.
func (e *Engine) ListStates(ctx context.Context, panes []Pane) map[string]AgentState {
	out := make(map[string]AgentState, len(panes))
	var agents, others []Pane
	for _, p := range panes {
		switch {
		case p.Dead || agentstate.IsShell(p.CurrentCommand) && !p.Alternate:
			// A shell on the alternate screen is a full-screen program
			// tmux names the shell (seq 100 | less): looked at.
			out[p.ID] = e.classify(p, e.paneFacts(p))
		case agentstate.MayBeAgent(p.CurrentCommand, e.agents.load(p)):
			agents = append(agents, p)
		default:
			others = append(others, p)
		}
	}
	look := append(agents, others...)
	if len(look) > listLooks {
		for _, p := range look[listLooks:] {
			f := e.paneFacts(p)
			r := e.classify(p, f)
			if r.State == string(agentstate.Unknown) {
				r.Detail = "not looked at: a listing looks at " + strconv.Itoa(listLooks) + " such panes"
			}
			out[p.ID] = r
		}
		look = look[:listLooks]
	}
	if len(look) == 0 {
		return out
	}
	// An agent CLI's screen is read whole; any other program's only on
	// the cursor's row, which tells a prompt or a question.
	cmds := make([]controlmode.Command, len(look))
	rowOnly := make([]bool, len(look))
	for i, p := range look {
		a := CaptureArgs{Join: true}
		if i >= len(agents) && !p.Alternate {
			a.Start, a.End = &p.CursorY, &p.CursorY
			rowOnly[i] = true
		}
		cmds[i] = CaptureCommand(a, p.ID)
	}
	// A pane that closed meanwhile fails its capture, and tmux drops the
	// rest of the line: those panes are told from the other facts.
	rs, _ := e.host.Exec(ctx, cmds...)
	for i, p := range look {
		f := e.paneFacts(p)
		switch {
		case i >= len(rs) || rs[i].Err != nil:
		case rowOnly[i]:
			row := ""
			if len(rs[i].Lines) > 0 {
				row = rs[i].Lines[0]
			}
			f.Screen = &agentstate.Screen{Rows: []string{row}, CursorX: p.CursorX, Width: p.Width}
		default:
			f.Screen = screenOf(p, rs[i].Lines)
		}
		e.withForeground(ctx, p, &f)
		out[p.ID] = e.classify(p, f)
	}
	return out
}
