package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// Result types. Field names and JSON types are libtmux-mcp's, so one result
// type has one shape in every tool; many numbers are strings because tmux
// returns them so. Optional fields are omitted, never null.

// SessionInfo describes a tmux session.
type SessionInfo struct {
	SessionID       string `json:"session_id"`
	SessionName     string `json:"session_name,omitempty"`
	WindowCount     int    `json:"window_count"`
	SessionAttached string `json:"session_attached,omitempty"`
	SessionCreated  string `json:"session_created,omitempty"`
	ActivePaneID    string `json:"active_pane_id,omitempty"`
	Generation      string `json:"generation,omitempty" jsonschema:"Pass to teardown_session with session_id."`
}

// WindowInfo describes a tmux window.
type WindowInfo struct {
	WindowID     string `json:"window_id"`
	WindowName   string `json:"window_name,omitempty"`
	WindowIndex  string `json:"window_index,omitempty"`
	SessionID    string `json:"session_id,omitempty"`
	SessionName  string `json:"session_name,omitempty"`
	PaneCount    int    `json:"pane_count"`
	WindowLayout string `json:"window_layout,omitempty"`
	WindowActive string `json:"window_active,omitempty"`
	WindowWidth  string `json:"window_width,omitempty"`
	WindowHeight string `json:"window_height,omitempty"`
	ActivePaneID string `json:"active_pane_id,omitempty"`
}

// PaneGeometry is a pane's place in its window: 0-based, window-relative,
// right and bottom inclusive.
type PaneGeometry struct {
	PaneLeft     *int  `json:"pane_left,omitempty"`
	PaneTop      *int  `json:"pane_top,omitempty"`
	PaneRight    *int  `json:"pane_right,omitempty"`
	PaneBottom   *int  `json:"pane_bottom,omitempty"`
	PaneAtLeft   *bool `json:"pane_at_left,omitempty"`
	PaneAtRight  *bool `json:"pane_at_right,omitempty"`
	PaneAtTop    *bool `json:"pane_at_top,omitempty"`
	PaneAtBottom *bool `json:"pane_at_bottom,omitempty"`
}

// PaneInfo describes a tmux pane.
type PaneInfo struct {
	PaneID     string `json:"pane_id"`
	PaneIndex  string `json:"pane_index,omitempty"`
	PaneWidth  string `json:"pane_width,omitempty"`
	PaneHeight string `json:"pane_height,omitempty"`
	PaneGeometry
	PaneTTY            string `json:"pane_tty,omitempty"`
	PaneCurrentCommand string `json:"pane_current_command,omitempty"`
	PaneCurrentPath    string `json:"pane_current_path,omitempty"`
	PanePID            string `json:"pane_pid,omitempty"`
	PaneTitle          string `json:"pane_title,omitempty"`
	PaneActive         string `json:"pane_active,omitempty"`
	WindowID           string `json:"window_id,omitempty"`
	SessionID          string `json:"session_id,omitempty"`
	IsCaller           *bool  `json:"is_caller,omitempty" jsonschema:"This MCP server runs in this pane."`
	ReadingInput       *bool  `json:"reading_input,omitempty"`
	AgentState         string `json:"agent_state,omitempty"`
	StateDetail        string `json:"state_detail,omitempty"`
}

// PaneContentMatch is a pane whose content matched search_panes.
type PaneContentMatch struct {
	PaneID string `json:"pane_id"`
	PaneGeometry
	PaneTTY            string   `json:"pane_tty,omitempty"`
	PaneCurrentCommand string   `json:"pane_current_command,omitempty"`
	PaneCurrentPath    string   `json:"pane_current_path,omitempty"`
	WindowID           string   `json:"window_id,omitempty"`
	WindowName         string   `json:"window_name,omitempty"`
	SessionID          string   `json:"session_id,omitempty"`
	SessionName        string   `json:"session_name,omitempty"`
	MatchedLines       []string `json:"matched_lines"`
	IsCaller           *bool    `json:"is_caller,omitempty"`
}

// PaneExitResult is the answer of wait_for_pane_exit.
type PaneExitResult struct {
	Exited     bool   `json:"exited"`
	ExitStatus *int   `json:"exit_status,omitempty"`
	Signal     string `json:"signal,omitempty"`
	// StatusUnreported is why an exit has neither exit_status nor signal.
	StatusUnreported string `json:"status_unreported,omitempty" jsonschema:"Why exit_status and signal are absent."`
	TimedOut         bool   `json:"timed_out,omitempty"`
	PaneClosed       bool   `json:"pane_closed,omitempty"`
	PaneRemoved      bool   `json:"pane_removed,omitempty"`
}

// ServerInfo describes a tmux server.
type ServerInfo struct {
	IsAlive      bool   `json:"is_alive"`
	SocketName   string `json:"socket_name,omitempty"`
	SocketPath   string `json:"socket_path,omitempty"`
	SessionCount int    `json:"session_count"`
	Version      string `json:"version,omitempty"`
}

// PaneSnapshot is a pane's screen with cursor, mode and scroll state.
type PaneSnapshot struct {
	PaneID     string `json:"pane_id"`
	Content    string `json:"content" jsonschema:"Visible pane text."`
	CursorX    int    `json:"cursor_x"`
	CursorY    int    `json:"cursor_y"`
	PaneWidth  int    `json:"pane_width"`
	PaneHeight int    `json:"pane_height"`
	PaneGeometry
	PaneTTY               string `json:"pane_tty,omitempty"`
	PanePID               string `json:"pane_pid,omitempty"`
	PaneDead              *bool  `json:"pane_dead,omitempty"`
	AlternateOn           *bool  `json:"alternate_on,omitempty"`
	PaneInMode            bool   `json:"pane_in_mode" jsonschema:"In copy-mode or view-mode."`
	PaneMode              string `json:"pane_mode,omitempty"`
	ScrollPosition        *int   `json:"scroll_position,omitempty" jsonschema:"Lines scrolled back in copy mode."`
	HistorySize           int    `json:"history_size"`
	Title                 string `json:"title,omitempty"`
	PaneCurrentCommand    string `json:"pane_current_command,omitempty"`
	PaneCurrentPath       string `json:"pane_current_path,omitempty"`
	IsCaller              *bool  `json:"is_caller,omitempty"`
	ReadingInput          *bool  `json:"reading_input,omitempty" jsonschema:"Program waits reading the terminal; absent if unknown."`
	AgentState            string `json:"agent_state,omitempty"`
	StateDetail           string `json:"state_detail,omitempty"`
	ContentTruncated      bool   `json:"content_truncated" jsonschema:"Oldest lines were dropped to fit max_lines."`
	ContentTruncatedLines int    `json:"content_truncated_lines"`
	// png is the screen as a PNG image (png: true), sent as image
	// content after the text.
	png []byte
}

// toolImage is the PNG of the screen, if asked for.
func (p PaneSnapshot) toolImage() []byte { return p.png }

// WaitForTextResult is the outcome of wait_for_text.
type WaitForTextResult struct {
	Found              bool     `json:"found"`
	Outcome            string   `json:"outcome"`
	MatchedIndex       *int     `json:"matched_index,omitempty" jsonschema:"Index into patterns, or stop when stopped."`
	MatchedLines       []string `json:"matched_lines"`
	SawNewOutput       bool     `json:"saw_new_output"`
	MatchedAtEntry     bool     `json:"matched_at_entry" jsonschema:"A pattern was already on screen at the start."`
	StopMatchedAtEntry bool     `json:"stop_matched_at_entry"`
	AlternateScreen    bool     `json:"alternate_screen"`
	Tail               []string `json:"tail" jsonschema:"Last lines seen, lean."`
	PaneID             string   `json:"pane_id"`
	ElapsedSeconds     float64  `json:"elapsed_seconds"`
	EffectiveTimeout   float64  `json:"effective_timeout"`
	Since              string   `json:"since" jsonschema:"What was matched: input, start or screen."`
	MatchedIn          string   `json:"matched_in,omitempty" jsonschema:"output (lines printed) or screen (as drawn)."`
	EchoSkipped        int      `json:"echo_skipped" jsonschema:"Echo lines of typed input left out."`
	EchoLines          []string `json:"echo_lines,omitempty" jsonschema:"Last lines left out as echo."`
}

// ContentChangeResult is the outcome of wait_for_content_change.
type ContentChangeResult struct {
	Changed          bool    `json:"changed" jsonschema:"Since this server's last input or such wait."`
	Quiet            bool    `json:"quiet" jsonschema:"The pane printed nothing for quiet_ms."`
	TimedOut         bool    `json:"timed_out"`
	OutputBytes      int64   `json:"output_bytes" jsonschema:"Bytes printed since then."`
	ReadingInput     *bool   `json:"reading_input,omitempty"`
	PaneID           string  `json:"pane_id"`
	ElapsedSeconds   float64 `json:"elapsed_seconds"`
	EffectiveTimeout float64 `json:"effective_timeout"`
}

// AgentStateResult is the outcome of wait_for_agent_state.
type AgentStateResult struct {
	Panes          []PaneAgentState `json:"panes" jsonschema:"The first to reach a state first."`
	TimedOut       bool             `json:"timed_out"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
}

// PaneAgentState is one pane's state in wait_for_agent_state.
type PaneAgentState struct {
	PaneID      string   `json:"pane_id"`
	AgentState  string   `json:"agent_state"`
	StateDetail string   `json:"state_detail,omitempty"`
	Answer      []string `json:"answer,omitempty"`
	AnswerFrom  string   `json:"answer_from,omitempty" jsonschema:"transcript or screen."`
}

// CaptureSinceResult is an incremental capture with a resume cursor.
type CaptureSinceResult struct {
	PaneID         string   `json:"pane_id"`
	Cursor         string   `json:"cursor" jsonschema:"Pass back to capture_since."`
	Lines          []string `json:"lines"`
	ElapsedSeconds float64  `json:"elapsed_seconds"`
	LinesMissed    bool     `json:"lines_missed" jsonschema:"History was lost since the cursor; lines is the current screen."`
	Truncated      bool     `json:"truncated"`
	TruncatedLines int      `json:"truncated_lines"`
	TruncatedBytes int      `json:"truncated_bytes"`

	LastLineUnfinished bool `json:"last_line_unfinished" jsonschema:"The last line is still being written (a prompt waiting for input); the next call returns it again."`
	AlternateScreen    bool `json:"alternate_screen" jsonschema:"A full-screen program (vim, a TUI): lines is its screen, not output since the cursor."`
}

// RunCommandResult is the outcome of run_command.
type RunCommandResult struct {
	CommandID            string   `json:"command_id"`
	PaneID               string   `json:"pane_id"`
	ExitStatus           *int     `json:"exit_status,omitempty" jsonschema:"Absent unless known."`
	TimedOut             bool     `json:"timed_out" jsonschema:"Still running: wait_for_command."`
	Ended                string   `json:"ended,omitempty" jsonschema:"exited, shell_exited, pane_closed, pane_respawned, server_exited or unknown."`
	EndedReason          string   `json:"ended_reason,omitempty" jsonschema:"When unknown: why, and where output comes from."`
	ShellExited          bool     `json:"shell_exited"`
	ElapsedSeconds       float64  `json:"elapsed_seconds"`
	Output               []string `json:"output"`
	OutputTruncated      bool     `json:"output_truncated"`
	OutputTruncatedLines int      `json:"output_truncated_lines"`
	OutputEarlierLines   int      `json:"output_earlier_lines,omitempty" jsonschema:"Lines earlier answers covered; output starts after them."`
	OutputCursor         string   `json:"output_cursor,omitempty" jsonschema:"When cut: capture_since reads all from it."`
	EffectiveTimeout     float64  `json:"effective_timeout"`
	WaitingFor           string   `json:"waiting_for,omitempty" jsonschema:"Line not typed yet: no first prompt."`
}

// SendKeysOperationResult is one row of send_keys_batch.
type SendKeysOperationResult struct {
	Index          int     `json:"index"`
	PaneID         string  `json:"pane_id,omitempty"`
	Success        bool    `json:"success"`
	Error          string  `json:"error,omitempty"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
}

// SendKeysBatchResult is the outcome of send_keys_batch.
type SendKeysBatchResult struct {
	Results   []SendKeysOperationResult `json:"results"`
	Succeeded int                       `json:"succeeded"`
	Failed    int                       `json:"failed"`
	StoppedAt *int                      `json:"stopped_at,omitempty" jsonschema:"Index where on_error=stop ended the batch."`
}

// ContentBlock is one content item of a nested tool result.
type ContentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ToolCallOperationResult is one row of a call_*_tools_batch result.
type ToolCallOperationResult struct {
	Index             int            `json:"index"`
	Tool              string         `json:"tool"`
	Success           bool           `json:"success"`
	Error             string         `json:"error,omitempty"`
	Content           []ContentBlock `json:"content"`
	StructuredContent JSONObject     `json:"structured_content,omitempty"`
	Meta              JSONObject     `json:"meta,omitempty"`
	ElapsedSeconds    float64        `json:"elapsed_seconds"`
}

// ToolCallBatchResult is the outcome of a call_*_tools_batch tool.
type ToolCallBatchResult struct {
	Results                []ToolCallOperationResult `json:"results"`
	Succeeded              int                       `json:"succeeded"`
	Failed                 int                       `json:"failed"`
	StoppedAt              *int                      `json:"stopped_at,omitempty"`
	ResponseTruncated      bool                      `json:"response_truncated" jsonschema:"Nested payloads elided to fit the response cap."`
	ResponseTruncatedBytes int                       `json:"response_truncated_bytes"`
}

// SearchPanesResult is one page of search_panes matches.
type SearchPanesResult struct {
	Matches           []PaneContentMatch `json:"matches"`
	Truncated         bool               `json:"truncated"`
	TruncatedPanes    []string           `json:"truncated_panes" jsonschema:"Matching panes beyond limit; page with offset."`
	TotalPanesMatched int                `json:"total_panes_matched"`
	Offset            int                `json:"offset"`
	Limit             *int               `json:"limit,omitempty" jsonschema:"Absent when unlimited."`
}

// OptionResult is the value of one tmux option.
type OptionResult struct {
	Option string `json:"option"`
	Value  any    `json:"value" jsonschema:"Option value: string, number, boolean, list or object."`
}

// OptionSetResult confirms set_option.
type OptionSetResult struct {
	Option string `json:"option"`
	Value  string `json:"value"`
	Status string `json:"status"`
}

// EnvironmentResult is a tmux environment.
type EnvironmentResult struct {
	Variables EnvValues `json:"variables" jsonschema:"Name to value; true marks a variable removed from the environment."`
}

// EnvironmentSetResult confirms set_environment.
type EnvironmentSetResult struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Status string `json:"status"`
}

// HookEntry is one command registered on a hook.
type HookEntry struct {
	HookName string `json:"hook_name"`
	Index    *int   `json:"index,omitempty" jsonschema:"Array index; absent for scalar hooks."`
	Command  string `json:"command"`
}

// HookListResult lists hook entries.
type HookListResult struct {
	Entries []HookEntry `json:"entries"`
}

// BufferRef names a buffer made by load_buffer.
type BufferRef struct {
	BufferName  string `json:"buffer_name" jsonschema:"Pass to paste_buffer, show_buffer, delete_buffer."`
	LogicalName string `json:"logical_name,omitempty"`
}

// BufferContent is the content of a buffer.
type BufferContent struct {
	BufferName            string `json:"buffer_name"`
	Content               string `json:"content"`
	ContentTruncated      bool   `json:"content_truncated"`
	ContentTruncatedLines int    `json:"content_truncated_lines"`
}

// TeardownSessionResult confirms teardown_session.
type TeardownSessionResult struct {
	Completed  bool   `json:"completed"`
	SessionID  string `json:"sessionId"`
	Generation string `json:"generation"`
}

// Message is the result of tools that answer with text (libtmux-mcp's str
// returns). Its text content is Result itself.
type Message struct {
	Result string `json:"result"`
}

func (m Message) toolText() string { return m.Result }

// List is the result of tools that answer with a list (libtmux-mcp wraps
// lists as {"result": [...]}): one page of it, with the number of rows in
// all pages and, when there are more, the offset of the next page.
type List[T any] struct {
	Result     []T  `json:"result"`
	Total      int  `json:"total" jsonschema:"Rows in all pages."`
	NextOffset *int `json:"next_offset,omitempty"`
}

// Argument and value types with a schema of their own (see typeSchemas).

// StringMap is a string-to-string object that also accepts the same object
// encoded as a JSON string (a workaround some clients need, as in libtmux-mcp).
type StringMap map[string]string

// UnmarshalJSON accepts an object of strings or a string holding one.
func (m *StringMap) UnmarshalJSON(b []byte) error {
	s, isString, err := jsonString(b)
	if err != nil {
		return err
	}
	if isString {
		b = []byte(s)
	}
	var v map[string]string
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("want an object of strings, or a JSON string holding one")
	}
	*m = v
	return nil
}

// PaneSize is a split size: a count of cells ("20", 20) or a percentage ("50%").
type PaneSize string

// UnmarshalJSON accepts a string or an integer.
func (p *PaneSize) UnmarshalJSON(b []byte) error {
	s, isString, err := jsonString(b)
	if err != nil {
		return err
	}
	if isString {
		*p = PaneSize(s)
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("want a string such as 50% or an integer")
	}
	*p = PaneSize(strconv.Itoa(n))
	return nil
}

// EnvValues maps variable names to values; a true value marks a variable
// removed from the environment (tmux's -NAME).
type EnvValues map[string]any

// JSONObject is a JSON object passed through unexamined.
type JSONObject []byte

// MarshalJSON returns o itself, or null when o is empty.
func (o JSONObject) MarshalJSON() ([]byte, error) {
	if len(o) == 0 {
		return []byte("null"), nil
	}
	return o, nil
}

// UnmarshalJSON stores a copy of b.
func (o *JSONObject) UnmarshalJSON(b []byte) error {
	*o = append((*o)[:0], b...)
	return nil
}

// jsonString decodes b when it is a JSON string, for the arguments that
// take a string or something else (a list, an object, a number); isString
// is false, and err nil, when b is not a string.
func jsonString(b []byte) (s string, isString bool, err error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '"' {
		return "", false, nil
	}
	err = json.Unmarshal(b, &s)
	return s, true, err
}
