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
// The call_*_tools_batch tools are answered by this package itself, each
// row through the whole call path, so they have no method here. A tool is
// declared once, in tools.go, by a method expression of this interface:
// a method without a declaration serves nothing, and a declaration without
// its method, or a Backend without it, does not compile.
type Backend interface {
	// Server.
	ListServers(context.Context, ListServersIn) (List[ServerInfo], error)
	ListSessions(context.Context, ListSessionsIn) (List[SessionInfo], error)
	GetServerInfo(context.Context, GetServerInfoIn) (ServerInfo, error)
	CreateSession(context.Context, CreateSessionIn) (SessionInfo, error)
	KillServer(context.Context, KillServerIn) (Message, error)

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
	WaitForCommand(context.Context, WaitForCommandIn) (RunCommandResult, error)
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
