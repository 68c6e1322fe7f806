package mcp

import (
	"context"
	"sync"
)

// fakeBackend is a test double: every method records its call and input,
// then panics, fails or answers as configured, else returns a zero result.
type fakeBackend struct {
	mu      sync.Mutex
	calls   []string
	inputs  map[string]any
	panicOn string
	errs    map[string]error
	results map[string]any
}

func newFake() *fakeBackend {
	return &fakeBackend{inputs: map[string]any{}, errs: map[string]error{}, results: map[string]any{}}
}

// answer records a call of tool with in and returns the configured result
// (or zero) and error.
func answer[Out any](f *fakeBackend, tool string, in any) (Out, error) {
	f.mu.Lock()
	f.calls = append(f.calls, tool)
	f.inputs[tool] = in
	panicOn, err, res := f.panicOn, f.errs[tool], f.results[tool]
	f.mu.Unlock()
	if panicOn == tool {
		panic("fake backend: boom in " + tool)
	}
	out, _ := res.(Out)
	return out, err
}

func (f *fakeBackend) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) input(tool string) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inputs[tool]
}

func (f *fakeBackend) ListServers(_ context.Context, in ListServersIn) (List[ServerInfo], error) {
	return answer[List[ServerInfo]](f, "list_servers", in)
}

func (f *fakeBackend) ListSessions(_ context.Context, in ListSessionsIn) (List[SessionInfo], error) {
	return answer[List[SessionInfo]](f, "list_sessions", in)
}

func (f *fakeBackend) GetServerInfo(_ context.Context, in GetServerInfoIn) (ServerInfo, error) {
	return answer[ServerInfo](f, "get_server_info", in)
}

func (f *fakeBackend) CreateSession(_ context.Context, in CreateSessionIn) (SessionInfo, error) {
	return answer[SessionInfo](f, "create_session", in)
}

func (f *fakeBackend) KillServer(_ context.Context, in KillServerIn) (Message, error) {
	return answer[Message](f, "kill_server", in)
}

func (f *fakeBackend) ListWindows(_ context.Context, in ListWindowsIn) (List[WindowInfo], error) {
	return answer[List[WindowInfo]](f, "list_windows", in)
}

func (f *fakeBackend) GetSessionInfo(_ context.Context, in GetSessionInfoIn) (SessionInfo, error) {
	return answer[SessionInfo](f, "get_session_info", in)
}

func (f *fakeBackend) CreateWindow(_ context.Context, in CreateWindowIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "create_window", in)
}

func (f *fakeBackend) RenameSession(_ context.Context, in RenameSessionIn) (SessionInfo, error) {
	return answer[SessionInfo](f, "rename_session", in)
}

func (f *fakeBackend) KillSession(_ context.Context, in KillSessionIn) (Message, error) {
	return answer[Message](f, "kill_session", in)
}

func (f *fakeBackend) SelectWindow(_ context.Context, in SelectWindowIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "select_window", in)
}

func (f *fakeBackend) TeardownSession(_ context.Context, in TeardownSessionIn) (TeardownSessionResult, error) {
	return answer[TeardownSessionResult](f, "teardown_session", in)
}

func (f *fakeBackend) ListPanes(_ context.Context, in ListPanesIn) (List[PaneInfo], error) {
	return answer[List[PaneInfo]](f, "list_panes", in)
}

func (f *fakeBackend) GetWindowInfo(_ context.Context, in GetWindowInfoIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "get_window_info", in)
}

func (f *fakeBackend) SplitWindow(_ context.Context, in SplitWindowIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "split_window", in)
}

func (f *fakeBackend) RenameWindow(_ context.Context, in RenameWindowIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "rename_window", in)
}

func (f *fakeBackend) KillWindow(_ context.Context, in KillWindowIn) (Message, error) {
	return answer[Message](f, "kill_window", in)
}

func (f *fakeBackend) SelectLayout(_ context.Context, in SelectLayoutIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "select_layout", in)
}

func (f *fakeBackend) ResizeWindow(_ context.Context, in ResizeWindowIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "resize_window", in)
}

func (f *fakeBackend) MoveWindow(_ context.Context, in MoveWindowIn) (WindowInfo, error) {
	return answer[WindowInfo](f, "move_window", in)
}

func (f *fakeBackend) RunCommand(_ context.Context, in RunCommandIn) (RunCommandResult, error) {
	return answer[RunCommandResult](f, "run_command", in)
}

func (f *fakeBackend) SendKeys(_ context.Context, in SendKeysIn) (Message, error) {
	return answer[Message](f, "send_keys", in)
}

func (f *fakeBackend) SendKeysBatch(_ context.Context, in SendKeysBatchIn) (SendKeysBatchResult, error) {
	return answer[SendKeysBatchResult](f, "send_keys_batch", in)
}

func (f *fakeBackend) PasteText(_ context.Context, in PasteTextIn) (Message, error) {
	return answer[Message](f, "paste_text", in)
}

func (f *fakeBackend) PipePane(_ context.Context, in PipePaneIn) (Message, error) {
	return answer[Message](f, "pipe_pane", in)
}

func (f *fakeBackend) WaitForCommand(_ context.Context, in WaitForCommandIn) (RunCommandResult, error) {
	return answer[RunCommandResult](f, "wait_for_command", in)
}
func (f *fakeBackend) WaitForChannel(_ context.Context, in WaitForChannelIn) (Message, error) {
	return answer[Message](f, "wait_for_channel", in)
}

func (f *fakeBackend) SignalChannel(_ context.Context, in SignalChannelIn) (Message, error) {
	return answer[Message](f, "signal_channel", in)
}

func (f *fakeBackend) CapturePane(_ context.Context, in CapturePaneIn) (Message, error) {
	return answer[Message](f, "capture_pane", in)
}

func (f *fakeBackend) CaptureSince(_ context.Context, in CaptureSinceIn) (CaptureSinceResult, error) {
	return answer[CaptureSinceResult](f, "capture_since", in)
}

func (f *fakeBackend) SnapshotPane(_ context.Context, in SnapshotPaneIn) (PaneSnapshot, error) {
	return answer[PaneSnapshot](f, "snapshot_pane", in)
}

func (f *fakeBackend) SearchPanes(_ context.Context, in SearchPanesIn) (SearchPanesResult, error) {
	return answer[SearchPanesResult](f, "search_panes", in)
}

func (f *fakeBackend) WaitForContentChange(_ context.Context, in WaitForContentChangeIn) (ContentChangeResult, error) {
	return answer[ContentChangeResult](f, "wait_for_content_change", in)
}
func (f *fakeBackend) WaitForText(_ context.Context, in WaitForTextIn) (WaitForTextResult, error) {
	return answer[WaitForTextResult](f, "wait_for_text", in)
}

func (f *fakeBackend) GetPaneInfo(_ context.Context, in GetPaneInfoIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "get_pane_info", in)
}

func (f *fakeBackend) FindPaneByPosition(_ context.Context, in FindPaneByPositionIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "find_pane_by_position", in)
}

func (f *fakeBackend) DisplayMessage(_ context.Context, in DisplayMessageIn) (Message, error) {
	return answer[Message](f, "display_message", in)
}

func (f *fakeBackend) SelectPane(_ context.Context, in SelectPaneIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "select_pane", in)
}

func (f *fakeBackend) SwapPane(_ context.Context, in SwapPaneIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "swap_pane", in)
}

func (f *fakeBackend) ResizePane(_ context.Context, in ResizePaneIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "resize_pane", in)
}

func (f *fakeBackend) SetPaneTitle(_ context.Context, in SetPaneTitleIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "set_pane_title", in)
}

func (f *fakeBackend) ClearPane(_ context.Context, in ClearPaneIn) (Message, error) {
	return answer[Message](f, "clear_pane", in)
}

func (f *fakeBackend) EnterCopyMode(_ context.Context, in EnterCopyModeIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "enter_copy_mode", in)
}

func (f *fakeBackend) ExitCopyMode(_ context.Context, in ExitCopyModeIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "exit_copy_mode", in)
}

func (f *fakeBackend) RespawnPane(_ context.Context, in RespawnPaneIn) (PaneInfo, error) {
	return answer[PaneInfo](f, "respawn_pane", in)
}

func (f *fakeBackend) KillPane(_ context.Context, in KillPaneIn) (Message, error) {
	return answer[Message](f, "kill_pane", in)
}

func (f *fakeBackend) ShowOption(_ context.Context, in ShowOptionIn) (OptionResult, error) {
	return answer[OptionResult](f, "show_option", in)
}

func (f *fakeBackend) SetOption(_ context.Context, in SetOptionIn) (OptionSetResult, error) {
	return answer[OptionSetResult](f, "set_option", in)
}

func (f *fakeBackend) ShowEnvironment(_ context.Context, in ShowEnvironmentIn) (EnvironmentResult, error) {
	return answer[EnvironmentResult](f, "show_environment", in)
}

func (f *fakeBackend) SetEnvironment(_ context.Context, in SetEnvironmentIn) (EnvironmentSetResult, error) {
	return answer[EnvironmentSetResult](f, "set_environment", in)
}

func (f *fakeBackend) LoadBuffer(_ context.Context, in LoadBufferIn) (BufferRef, error) {
	return answer[BufferRef](f, "load_buffer", in)
}

func (f *fakeBackend) PasteBuffer(_ context.Context, in PasteBufferIn) (Message, error) {
	return answer[Message](f, "paste_buffer", in)
}

func (f *fakeBackend) ShowBuffer(_ context.Context, in ShowBufferIn) (BufferContent, error) {
	return answer[BufferContent](f, "show_buffer", in)
}

func (f *fakeBackend) DeleteBuffer(_ context.Context, in DeleteBufferIn) (Message, error) {
	return answer[Message](f, "delete_buffer", in)
}

func (f *fakeBackend) ShowHooks(_ context.Context, in ShowHooksIn) (HookListResult, error) {
	return answer[HookListResult](f, "show_hooks", in)
}

func (f *fakeBackend) ShowHook(_ context.Context, in ShowHookIn) (HookListResult, error) {
	return answer[HookListResult](f, "show_hook", in)
}
