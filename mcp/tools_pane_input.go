package mcp

// paneTarget is the needsTarget set of tools that take a pane target.
func paneTarget() toolOption {
	return needsTarget("pane_id", "session_name", "session_id", "window_id")
}

// Pane input tools.
func paneInputTools() []*toolDef {
	return []*toolDef{
		addTool("run_command", TierMutating, annShell,
			"Run a command in the pane's shell; return its exit status and all its output. cd and export persist; multi-line commands are fine.",
			(*TmuxBackend).RunCommand, writes, execute, paneTarget(), selfBounded()),
		addTool("send_keys", TierMutating, annShell,
			"Send keys to a pane, then Enter unless enter is false (also after C-c). Text waits for a starting shell's first prompt; Enter after text goes once it drew.",
			(*TmuxBackend).SendKeys, writes, execute, paneTarget()),
		addTool("send_keys_batch", TierMutating, annShell,
			"Send several inputs to panes in order.",
			(*TmuxBackend).SendKeysBatch, writes, execute,
			scopeRuleBoth("every row's target in scope, else nothing is sent")),
		addTool("paste_text", TierMutating, annShell,
			"Paste text, multi-line included, into a pane through a tmux buffer.",
			(*TmuxBackend).PasteText, writes, execute, paneTarget()),
		addTool("pipe_pane", TierMutating, annShell,
			"Append a pane's output to a file, or stop doing so.",
			(*TmuxBackend).PipePane, writes, execute, paneTarget()),
		addTool("wait_for_channel", TierMutating, annMutating,
			"Wait until a tmux wait-for channel is signalled; a timeout is an error.",
			(*TmuxBackend).WaitForChannel, touchesNone, manage, selfBounded(),
			scopeRuleBoth("anything (channels belong to no session)")),
		addTool("wait_for_command", TierMutating, annReadOnly,
			"Wait for a run_command's command to end; same result. output: only lines no earlier answer returned (from_start: all again), the newest max_lines.",
			(*TmuxBackend).WaitForCommand, touchesNone, execute, selfBounded(), resultAs("run_command"),
			scopeRuleBoth("the runner's own commands (checked when they ran)")),
		addTool("wait_for_pane_exit", TierMutating, annCreate,
			"Wait for a pane's program to exit; answer its exit status or signal. Holds remain-on-exit meanwhile (restored; a pane only it kept is closed). tmux 3.3+.",
			(*TmuxBackend).WaitForPaneExit, writes, manage, selfBounded()),
		addTool("signal_channel", TierMutating, annMutating,
			"Signal a tmux wait-for channel.",
			(*TmuxBackend).SignalChannel, touchesServer, manage,
			scopeRuleBoth("refused (it wakes any waiter on the server)")),
	}
}

// The input types of the pane input tools.
type (
	// RunCommandIn is the input of run_command.
	RunCommandIn struct {
		Command string `json:"command" jsonschema:"Shell command." mcp:"len=1048576"`
		PaneTarget
		Timeout         float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		MaxLines        int     `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0 for 2000 (256 KB at most)." mcp:"min=0;max=1000000"`
		SuppressHistory *bool   `json:"suppress_history,omitempty" jsonschema:"Prefix a space so the shell skips history; default LIBTMUX_SUPPRESS_HISTORY (on)."`
		Background      bool    `json:"background,omitempty" jsonschema:"Return at once with command_id, for wait_for_command (also before a first prompt)." mcp:"default=false"`
		Socket
	}
	// SendKeysIn is the input of send_keys.
	SendKeysIn struct {
		Keys KeyList `json:"keys" jsonschema:"One tmux key name (C-c, Escape, Up) or else text as typed (\"Escape :wq\" types those words). A list: key names and texts, pressed one at a time, each after the program reacted."`
		PaneTarget
		Enter           bool `json:"enter,omitempty" jsonschema:"Press Enter after the keys (also after C-c); false: the keys alone." mcp:"default=true"`
		Literal         bool `json:"literal,omitempty" jsonschema:"Send keys as text, without key-name lookup." mcp:"default=false"`
		SuppressHistory bool `json:"suppress_history,omitempty" jsonschema:"Prefix a space so the shell skips history." mcp:"default=false"`
		DriveMode       bool `json:"drive_mode,omitempty" jsonschema:"Send even in copy or another tmux mode, to drive it (else refused)." mcp:"default=false"`
		PaceMs          int  `json:"pace_ms,omitempty" jsonschema:"Most ms to await a reaction to each listed key, or to text before Enter; 0: all at once." mcp:"min=0;max=10000;default=250"`
		Socket
	}
	// SendKeysOperation is one input of send_keys_batch.
	SendKeysOperation struct {
		Keys            string `json:"keys" jsonschema:"Text or tmux key names." mcp:"len=1048576"`
		PaneID          string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		SessionName     string `json:"session_name,omitempty" mcp:"len=64;line"`
		SessionID       string `json:"session_id,omitempty" mcp:"len=64;line;pattern=^[$][0-9]+$"`
		WindowID        string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Enter           bool   `json:"enter,omitempty" jsonschema:"Press Enter after the keys." mcp:"default=true"`
		Literal         bool   `json:"literal,omitempty" jsonschema:"Send keys as text." mcp:"default=false"`
		SuppressHistory bool   `json:"suppress_history,omitempty" jsonschema:"Prefix a space." mcp:"default=false"`
		DriveMode       bool   `json:"drive_mode,omitempty" jsonschema:"Send also in a tmux mode." mcp:"default=false"`
	}
	// SendKeysBatchIn is the input of send_keys_batch.
	SendKeysBatchIn struct {
		Operations []SendKeysOperation `json:"operations" jsonschema:"Inputs to send in order." mcp:"minitems=1;items=1000"`
		OnError    string              `json:"on_error,omitempty" mcp:"enum=stop|continue;default=\"stop\""`
		Timeout    *float64            `json:"timeout,omitempty" jsonschema:"Seconds for the whole batch." mcp:"xmin=0;max=86400"`
		Socket
	}
	// PasteTextIn is the input of paste_text.
	PasteTextIn struct {
		Text    string `json:"text" jsonschema:"Text to paste." mcp:"len=1048576"`
		PaneID  string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Bracket bool   `json:"bracket,omitempty" jsonschema:"Use bracketed paste." mcp:"default=true"`
		SessionTarget
		WindowID string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// PipePaneIn is the input of pipe_pane.
	PipePaneIn struct {
		PaneID     string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		OutputPath string `json:"output_path,omitempty" jsonschema:"File to append output to; omit to stop." mcp:"len=4096;line"`
		Append     bool   `json:"append,omitempty" jsonschema:"Append rather than truncate." mcp:"default=true"`
		SessionTarget
		WindowID string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// WaitForChannelIn is the input of wait_for_channel.
	WaitForChannelIn struct {
		Channel string  `json:"channel" jsonschema:"Channel signalled by tmux wait-for -S." mcp:"len=128;pattern=^[A-Za-z0-9_.:-]+$"`
		Timeout float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		Socket
	}
	// WaitForCommandIn is the input of wait_for_command.
	WaitForCommandIn struct {
		CommandID string  `json:"command_id" mcp:"len=64;line"`
		Timeout   float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		MaxLines  int     `json:"max_lines,omitempty" jsonschema:"Newest lines kept of the output no earlier answer returned; 0 for 2000." mcp:"min=0;max=1000000;default=50"`
		FromStart bool    `json:"from_start,omitempty" jsonschema:"Read the output from its start again, not from where the last answer ended." mcp:"default=false"`
		Socket
	}
	// WaitForPaneExitIn is the input of wait_for_pane_exit.
	WaitForPaneExitIn struct {
		PaneID  string  `json:"pane_id" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Timeout float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		Socket
	}
	// SignalChannelIn is the input of signal_channel.
	SignalChannelIn struct {
		Channel string `json:"channel" jsonschema:"Channel to signal." mcp:"len=128;pattern=^[A-Za-z0-9_.:-]+$"`
		Socket
	}
)

// targets of send_keys_batch: every row's.
func (in SendKeysBatchIn) targets() reach {
	var r reach
	for _, op := range in.Operations {
		r = r.with(refs(op.PaneID, op.WindowID, op.SessionID, op.SessionName))
	}
	return r
}

func (in PasteTextIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

func (in PipePaneIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

func (in WaitForPaneExitIn) targets() reach { return reach{list: refs(in.PaneID, "", "", "")} }
