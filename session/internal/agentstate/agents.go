package agentstate

import "regexp"

// An Agent is what one agent CLI draws, as regular expressions over one
// row of its screen (capture-pane's text, wrapped rows joined). Each entry
// is tested against the real CLI talking to a loopback fake of its model
// API (cmd/tmux-mcp's agent-state tests).
type Agent struct {
	// Name is the CLI's name in answers: "claude", "codex", "gemini".
	Name string
	// Commands are the names tmux gives its foreground program
	// (pane_current_command) that are this CLI and nothing else.
	Commands []string
	// Signature are rows that only this CLI draws: they name it when its
	// foreground program is a generic one (node).
	Signature []string
	// Asking are rows shown while it asks this pane's keyboard a question:
	// a permission menu, a choice. The first that matches says which.
	Asking []Ask
	// Busy are rows shown while it works on a prompt.
	Busy []string
	// Ready are rows shown while it waits for a prompt (some show them
	// while busy too: Busy and Asking are looked at first).
	Ready []string
	// Chrome are rows of its own frame (input box, rules, footer), which
	// are not part of an answer.
	Chrome []string
	// Answer, if set, matches the first row of an answer block, whose
	// text is after the match; the rows after it that are indented by
	// the same width continue it.
	Answer string
	// Transcript says which record on disk this CLI writes ("claude":
	// JSONL under ~/.claude/projects), "" for none known.
	Transcript string
}

// An Ask is a question an agent CLI puts to the keyboard.
type Ask struct {
	Pattern string // a row of it
	Kind    string // permission or question
	// Top, if set, is the row at or above Pattern's where the question's
	// text starts (at most 10 rows up); without it, the text starts
	// below the solid rule above.
	Top string
	// End, if set, is the row at or below Pattern's where the question's
	// text ends, for a question with blank rows inside; without it, the
	// first blank row or row of the CLI's frame ends it.
	End string
}

// Agents are the agent CLIs known, tried in this order.
var Agents = []Agent{
	{
		Name:      "claude",
		Commands:  []string{"claude"},
		Signature: []string{`Claude Code v\d`},
		Asking: []Ask{
			{Pattern: `^\s*Do you want to (proceed|make this edit|create)`, Kind: "permission"},
			{Pattern: `^\s*❯ \d+\. Yes`, Kind: "permission"},
			{Pattern: `^\s*❯ (Yes|No)\b`, Kind: "question"},
			{Pattern: `^\s*❯ \d+\. `, Kind: "question"},
		},
		// Its spinner row ("✶ Cooking…", a word and an ellipsis, then
		// maybe the time and tokens) turns while it works, also when
		// text typed ahead took "esc to interrupt" off its footer; once
		// done the row says "✻ Brewed for 4s".
		Busy:       []string{`esc to interrupt`, `^[·✢✳✶✻✽*] \p{L}[\p{L}' -]*…`},
		Ready:      []string{`^❯(\s|\x{a0}|$)`, `\? for shortcuts`},
		Chrome:     []string{`^─{10,}$`, `^❯(\s|\x{a0}|$)`, `^\s*(⏵⏵|⏸|\? for shortcuts)`},
		Answer:     `^● `,
		Transcript: "claude",
	},
	{
		Name:      "codex",
		Commands:  []string{"codex"},
		Signature: []string{`OpenAI Codex`, `Ask Codex to do anything`},
		// Codex 0.171.0 asks below its transcript, no frame, blank rows
		// between the question, its reason, the command and the choices:
		//	  Would you like to run the following command?
		//	  Reason: ...
		//	  $ touch made-by-tool
		//	› 1. Yes, proceed (y)
		//	  ...
		//	  Press enter to confirm or esc to cancel
		Asking: []Ask{
			{Pattern: `Would you like to (run|make|apply|grant|send)`, Kind: "permission", Top: `Would you like to`, End: `Press enter to confirm`},
			{Pattern: `^\s*› \d+\. Yes`, Kind: "permission", Top: `Would you like to`, End: `Press enter to confirm`},
			{Pattern: `Press enter to confirm`, Kind: "question"},
		},
		Busy:  []string{`esc to interrupt`},
		Ready: []string{`Ask Codex to do anything`, `^› `, `context left`},
		// "Worked for 1s • 17:47" ends its answer: a status, not a line of it.
		Chrome: []string{`^› `, `context left`, `^\s*⏎`, `^\s*Worked for \d`},
		Answer: `^• `,
	},
	{
		Name:      "gemini",
		Commands:  []string{"gemini"},
		Signature: []string{`Type your message or @path/to/file`, `Gemini CLI`},
		// Gemini CLI 0.61.0 asks in a box, the command in a box inside it
		// and a blank row before the choices:
		//	╭──────╮
		//	│ ? Shell  touch made-by-tool │
		//	│ ╭──╮ … touch made-by-tool … ╰──╯ │
		//	│ Allow execution of [Shell]? │
		//	│ ● 1. Allow once │
		//	╰──────╯
		Asking: []Ask{
			{Pattern: `Allow execution`, Kind: "permission", Top: `^\s*╭─`, End: `^\s*╰─`},
			{Pattern: `Apply this change\?`, Kind: "permission", Top: `^\s*╭─`, End: `^\s*╰─`},
			{Pattern: `^\s*│?\s*● \d+\. Allow`, Kind: "permission", Top: `^\s*╭─`, End: `^\s*╰─`},
			{Pattern: `Waiting for user confirmation`, Kind: "permission"},
			{Pattern: `^\s*│?\s*● \d+\. `, Kind: "question"},
		},
		Busy:  []string{`esc to cancel`},
		Ready: []string{`Type your message or @path/to/file`},
		// "? for shortcuts" is drawn right-aligned under its answer.
		Chrome: []string{`^\s*[╭╰]─+`, `Type your message`, `^\s*│\s*>`, `^\s*\? for shortcuts\s*$`},
		Answer: `^✦ `,
	},
}

// compiled is an Agent's patterns, compiled once.
type compiled struct {
	Agent
	signature, busy, ready, chrome []*regexp.Regexp
	asking                         []*regexp.Regexp
	tops, ends                     []*regexp.Regexp // each Ask's Top and End, nil if unset
	answer                         *regexp.Regexp
}

var agents = compileAgents(Agents)

func compileAgents(as []Agent) []compiled {
	out := make([]compiled, len(as))
	all := func(ps []string) []*regexp.Regexp {
		rs := make([]*regexp.Regexp, len(ps))
		for i, p := range ps {
			rs[i] = regexp.MustCompile(p)
		}
		return rs
	}
	for i, a := range as {
		c := compiled{Agent: a, signature: all(a.Signature), busy: all(a.Busy), ready: all(a.Ready), chrome: all(a.Chrome)}
		optional := func(p string) *regexp.Regexp {
			if p == "" {
				return nil
			}
			return regexp.MustCompile(p)
		}
		for _, ask := range a.Asking {
			c.asking = append(c.asking, regexp.MustCompile(ask.Pattern))
			c.tops = append(c.tops, optional(ask.Top))
			c.ends = append(c.ends, optional(ask.End))
		}
		if a.Answer != "" {
			c.answer = regexp.MustCompile(a.Answer)
		}
		out[i] = c
	}
	return out
}

// AgentNamed returns the entry named name.
func AgentNamed(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// firstRow returns the index of the first row one of res matches, and
// which; -1 for none.
func firstRow(rows []string, res []*regexp.Regexp) (row, which int) {
	for i, r := range rows {
		for j, re := range res {
			if re.MatchString(r) {
				return i, j
			}
		}
	}
	return -1, -1
}

// anyRow reports whether one of res matches a row.
func anyRow(rows []string, res []*regexp.Regexp) bool {
	i, _ := firstRow(rows, res)
	return i >= 0
}
