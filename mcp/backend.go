package mcp

import "context"

// Backend executes the tools: one method per tool, named after it, taking
// the tool's input type and returning its result type.
//
// Inputs arrive validated against the tool's schema (types, enums, limits,
// no NUL, single-line ids and names) with defaults applied; an argument that
// was absent is its zero value (nil for pointer fields). A returned error is
// mapped to the envelope by classify: return a *ToolError, or an error
// implementing the interfaces documented there (CodedError, EffectsError,
// RetryableError, SuggestionError). Returned results may contain nil slices;
// they are sent as empty lists.
//
// Methods are called concurrently, one goroutine per request; ctx is
// cancelled when the client cancels the request.
//
// The three call_*_tools_batch methods are answered by this package itself
// (NewServer wraps the Backend): implementations may leave them to an
// embedded UnimplementedBackend.
type Backend interface {
	// Server.
	ListServers(context.Context, ListServersIn) (List[ServerInfo], error)
	ListSessions(context.Context, ListSessionsIn) (List[SessionInfo], error)
	GetServerInfo(context.Context, GetServerInfoIn) (ServerInfo, error)
	CreateSession(context.Context, CreateSessionIn) (SessionInfo, error)
	KillServer(context.Context, KillServerIn) (Message, error)

	// Batch.
	CallReadonlyToolsBatch(context.Context, ToolCallBatchIn) (ToolCallBatchResult, error)
	CallMutatingToolsBatch(context.Context, ToolCallBatchIn) (ToolCallBatchResult, error)
	CallDestructiveToolsBatch(context.Context, ToolCallBatchIn) (ToolCallBatchResult, error)

	// Session.
	ListWindows(context.Context, ListWindowsIn) (List[WindowInfo], error)
	GetSessionInfo(context.Context, GetSessionInfoIn) (SessionInfo, error)
	CreateWindow(context.Context, CreateWindowIn) (WindowInfo, error)
	RenameSession(context.Context, RenameSessionIn) (SessionInfo, error)
	KillSession(context.Context, KillSessionIn) (Message, error)
	SelectWindow(context.Context, SelectWindowIn) (WindowInfo, error)
	TeardownSession(context.Context, TeardownSessionIn) (TeardownSessionResult, error)

	// Window.
	ListPanes(context.Context, ListPanesIn) (List[PaneInfo], error)
	GetWindowInfo(context.Context, GetWindowInfoIn) (WindowInfo, error)
	SplitWindow(context.Context, SplitWindowIn) (PaneInfo, error)
	RenameWindow(context.Context, RenameWindowIn) (WindowInfo, error)
	KillWindow(context.Context, KillWindowIn) (Message, error)
	SelectLayout(context.Context, SelectLayoutIn) (WindowInfo, error)
	ResizeWindow(context.Context, ResizeWindowIn) (WindowInfo, error)
	MoveWindow(context.Context, MoveWindowIn) (WindowInfo, error)

	// Pane input.
	RunCommand(context.Context, RunCommandIn) (RunCommandResult, error)
	SendKeys(context.Context, SendKeysIn) (Message, error)
	SendKeysBatch(context.Context, SendKeysBatchIn) (SendKeysBatchResult, error)
	PasteText(context.Context, PasteTextIn) (Message, error)
	PipePane(context.Context, PipePaneIn) (Message, error)
	WaitForChannel(context.Context, WaitForChannelIn) (Message, error)
	SignalChannel(context.Context, SignalChannelIn) (Message, error)

	// Pane reading.
	CapturePane(context.Context, CapturePaneIn) (Message, error)
	CaptureSince(context.Context, CaptureSinceIn) (CaptureSinceResult, error)
	SnapshotPane(context.Context, SnapshotPaneIn) (PaneSnapshot, error)
	SearchPanes(context.Context, SearchPanesIn) (SearchPanesResult, error)
	WaitForText(context.Context, WaitForTextIn) (WaitForTextResult, error)
	WaitForContentChange(context.Context, WaitForContentChangeIn) (ContentChangeResult, error)
	GetPaneInfo(context.Context, GetPaneInfoIn) (PaneInfo, error)
	FindPaneByPosition(context.Context, FindPaneByPositionIn) (PaneInfo, error)
	DisplayMessage(context.Context, DisplayMessageIn) (Message, error)

	// Pane layout, modes and lifecycle.
	SelectPane(context.Context, SelectPaneIn) (PaneInfo, error)
	SwapPane(context.Context, SwapPaneIn) (PaneInfo, error)
	ResizePane(context.Context, ResizePaneIn) (PaneInfo, error)
	SetPaneTitle(context.Context, SetPaneTitleIn) (PaneInfo, error)
	ClearPane(context.Context, ClearPaneIn) (Message, error)
	EnterCopyMode(context.Context, EnterCopyModeIn) (PaneInfo, error)
	ExitCopyMode(context.Context, ExitCopyModeIn) (PaneInfo, error)
	RespawnPane(context.Context, RespawnPaneIn) (PaneInfo, error)
	KillPane(context.Context, KillPaneIn) (Message, error)

	// Options, environment, buffers, hooks.
	ShowOption(context.Context, ShowOptionIn) (OptionResult, error)
	SetOption(context.Context, SetOptionIn) (OptionSetResult, error)
	ShowEnvironment(context.Context, ShowEnvironmentIn) (EnvironmentResult, error)
	SetEnvironment(context.Context, SetEnvironmentIn) (EnvironmentSetResult, error)
	LoadBuffer(context.Context, LoadBufferIn) (BufferRef, error)
	PasteBuffer(context.Context, PasteBufferIn) (Message, error)
	ShowBuffer(context.Context, ShowBufferIn) (BufferContent, error)
	DeleteBuffer(context.Context, DeleteBufferIn) (Message, error)
	ShowHooks(context.Context, ShowHooksIn) (HookListResult, error)
	ShowHook(context.Context, ShowHookIn) (HookListResult, error)
}

// UnimplementedBackend answers every tool with an internal error saying the
// tool is not implemented. Embed it to implement a Backend a piece at a time.
type UnimplementedBackend struct{}

var _ Backend = UnimplementedBackend{}

func unimplemented(tool string) error {
	return Errorf(CodeInternal, EffectsNone, "%s is not implemented", tool)
}

func (UnimplementedBackend) ListServers(context.Context, ListServersIn) (List[ServerInfo], error) {
	return List[ServerInfo]{}, unimplemented("list_servers")
}
func (UnimplementedBackend) ListSessions(context.Context, ListSessionsIn) (List[SessionInfo], error) {
	return List[SessionInfo]{}, unimplemented("list_sessions")
}
func (UnimplementedBackend) GetServerInfo(context.Context, GetServerInfoIn) (ServerInfo, error) {
	return ServerInfo{}, unimplemented("get_server_info")
}
func (UnimplementedBackend) CreateSession(context.Context, CreateSessionIn) (SessionInfo, error) {
	return SessionInfo{}, unimplemented("create_session")
}
func (UnimplementedBackend) KillServer(context.Context, KillServerIn) (Message, error) {
	return Message{}, unimplemented("kill_server")
}
func (UnimplementedBackend) CallReadonlyToolsBatch(context.Context, ToolCallBatchIn) (ToolCallBatchResult, error) {
	return ToolCallBatchResult{}, unimplemented("call_readonly_tools_batch")
}
func (UnimplementedBackend) CallMutatingToolsBatch(context.Context, ToolCallBatchIn) (ToolCallBatchResult, error) {
	return ToolCallBatchResult{}, unimplemented("call_mutating_tools_batch")
}
func (UnimplementedBackend) CallDestructiveToolsBatch(context.Context, ToolCallBatchIn) (ToolCallBatchResult, error) {
	return ToolCallBatchResult{}, unimplemented("call_destructive_tools_batch")
}
func (UnimplementedBackend) ListWindows(context.Context, ListWindowsIn) (List[WindowInfo], error) {
	return List[WindowInfo]{}, unimplemented("list_windows")
}
func (UnimplementedBackend) GetSessionInfo(context.Context, GetSessionInfoIn) (SessionInfo, error) {
	return SessionInfo{}, unimplemented("get_session_info")
}
func (UnimplementedBackend) CreateWindow(context.Context, CreateWindowIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("create_window")
}
func (UnimplementedBackend) RenameSession(context.Context, RenameSessionIn) (SessionInfo, error) {
	return SessionInfo{}, unimplemented("rename_session")
}
func (UnimplementedBackend) KillSession(context.Context, KillSessionIn) (Message, error) {
	return Message{}, unimplemented("kill_session")
}
func (UnimplementedBackend) SelectWindow(context.Context, SelectWindowIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("select_window")
}
func (UnimplementedBackend) TeardownSession(context.Context, TeardownSessionIn) (TeardownSessionResult, error) {
	return TeardownSessionResult{}, unimplemented("teardown_session")
}
func (UnimplementedBackend) ListPanes(context.Context, ListPanesIn) (List[PaneInfo], error) {
	return List[PaneInfo]{}, unimplemented("list_panes")
}
func (UnimplementedBackend) GetWindowInfo(context.Context, GetWindowInfoIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("get_window_info")
}
func (UnimplementedBackend) SplitWindow(context.Context, SplitWindowIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("split_window")
}
func (UnimplementedBackend) RenameWindow(context.Context, RenameWindowIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("rename_window")
}
func (UnimplementedBackend) KillWindow(context.Context, KillWindowIn) (Message, error) {
	return Message{}, unimplemented("kill_window")
}
func (UnimplementedBackend) SelectLayout(context.Context, SelectLayoutIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("select_layout")
}
func (UnimplementedBackend) ResizeWindow(context.Context, ResizeWindowIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("resize_window")
}
func (UnimplementedBackend) MoveWindow(context.Context, MoveWindowIn) (WindowInfo, error) {
	return WindowInfo{}, unimplemented("move_window")
}
func (UnimplementedBackend) RunCommand(context.Context, RunCommandIn) (RunCommandResult, error) {
	return RunCommandResult{}, unimplemented("run_command")
}
func (UnimplementedBackend) SendKeys(context.Context, SendKeysIn) (Message, error) {
	return Message{}, unimplemented("send_keys")
}
func (UnimplementedBackend) SendKeysBatch(context.Context, SendKeysBatchIn) (SendKeysBatchResult, error) {
	return SendKeysBatchResult{}, unimplemented("send_keys_batch")
}
func (UnimplementedBackend) PasteText(context.Context, PasteTextIn) (Message, error) {
	return Message{}, unimplemented("paste_text")
}
func (UnimplementedBackend) PipePane(context.Context, PipePaneIn) (Message, error) {
	return Message{}, unimplemented("pipe_pane")
}
func (UnimplementedBackend) WaitForChannel(context.Context, WaitForChannelIn) (Message, error) {
	return Message{}, unimplemented("wait_for_channel")
}
func (UnimplementedBackend) SignalChannel(context.Context, SignalChannelIn) (Message, error) {
	return Message{}, unimplemented("signal_channel")
}
func (UnimplementedBackend) CapturePane(context.Context, CapturePaneIn) (Message, error) {
	return Message{}, unimplemented("capture_pane")
}
func (UnimplementedBackend) CaptureSince(context.Context, CaptureSinceIn) (CaptureSinceResult, error) {
	return CaptureSinceResult{}, unimplemented("capture_since")
}
func (UnimplementedBackend) SnapshotPane(context.Context, SnapshotPaneIn) (PaneSnapshot, error) {
	return PaneSnapshot{}, unimplemented("snapshot_pane")
}
func (UnimplementedBackend) SearchPanes(context.Context, SearchPanesIn) (SearchPanesResult, error) {
	return SearchPanesResult{}, unimplemented("search_panes")
}
func (UnimplementedBackend) WaitForText(context.Context, WaitForTextIn) (WaitForTextResult, error) {
	return WaitForTextResult{}, unimplemented("wait_for_text")
}
func (UnimplementedBackend) WaitForContentChange(context.Context, WaitForContentChangeIn) (ContentChangeResult, error) {
	return ContentChangeResult{}, unimplemented("wait_for_content_change")
}
func (UnimplementedBackend) GetPaneInfo(context.Context, GetPaneInfoIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("get_pane_info")
}
func (UnimplementedBackend) FindPaneByPosition(context.Context, FindPaneByPositionIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("find_pane_by_position")
}
func (UnimplementedBackend) DisplayMessage(context.Context, DisplayMessageIn) (Message, error) {
	return Message{}, unimplemented("display_message")
}
func (UnimplementedBackend) SelectPane(context.Context, SelectPaneIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("select_pane")
}
func (UnimplementedBackend) SwapPane(context.Context, SwapPaneIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("swap_pane")
}
func (UnimplementedBackend) ResizePane(context.Context, ResizePaneIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("resize_pane")
}
func (UnimplementedBackend) SetPaneTitle(context.Context, SetPaneTitleIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("set_pane_title")
}
func (UnimplementedBackend) ClearPane(context.Context, ClearPaneIn) (Message, error) {
	return Message{}, unimplemented("clear_pane")
}
func (UnimplementedBackend) EnterCopyMode(context.Context, EnterCopyModeIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("enter_copy_mode")
}
func (UnimplementedBackend) ExitCopyMode(context.Context, ExitCopyModeIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("exit_copy_mode")
}
func (UnimplementedBackend) RespawnPane(context.Context, RespawnPaneIn) (PaneInfo, error) {
	return PaneInfo{}, unimplemented("respawn_pane")
}
func (UnimplementedBackend) KillPane(context.Context, KillPaneIn) (Message, error) {
	return Message{}, unimplemented("kill_pane")
}
func (UnimplementedBackend) ShowOption(context.Context, ShowOptionIn) (OptionResult, error) {
	return OptionResult{}, unimplemented("show_option")
}
func (UnimplementedBackend) SetOption(context.Context, SetOptionIn) (OptionSetResult, error) {
	return OptionSetResult{}, unimplemented("set_option")
}
func (UnimplementedBackend) ShowEnvironment(context.Context, ShowEnvironmentIn) (EnvironmentResult, error) {
	return EnvironmentResult{}, unimplemented("show_environment")
}
func (UnimplementedBackend) SetEnvironment(context.Context, SetEnvironmentIn) (EnvironmentSetResult, error) {
	return EnvironmentSetResult{}, unimplemented("set_environment")
}
func (UnimplementedBackend) LoadBuffer(context.Context, LoadBufferIn) (BufferRef, error) {
	return BufferRef{}, unimplemented("load_buffer")
}
func (UnimplementedBackend) PasteBuffer(context.Context, PasteBufferIn) (Message, error) {
	return Message{}, unimplemented("paste_buffer")
}
func (UnimplementedBackend) ShowBuffer(context.Context, ShowBufferIn) (BufferContent, error) {
	return BufferContent{}, unimplemented("show_buffer")
}
func (UnimplementedBackend) DeleteBuffer(context.Context, DeleteBufferIn) (Message, error) {
	return Message{}, unimplemented("delete_buffer")
}
func (UnimplementedBackend) ShowHooks(context.Context, ShowHooksIn) (HookListResult, error) {
	return HookListResult{}, unimplemented("show_hooks")
}
func (UnimplementedBackend) ShowHook(context.Context, ShowHookIn) (HookListResult, error) {
	return HookListResult{}, unimplemented("show_hook")
}
