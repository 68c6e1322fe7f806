package controlmode

// Notification is a line tmux sent outside any reply block, decoded. It is
// one of the types below; switch on the concrete type. Ids keep tmux's sigils
// ("$1", "@2", "%3").
//
// Notifications are rendered by tmux when they are delivered, not when the
// event happened: treat them as "this changed, look again", not as a log.
type Notification interface {
	notification()
}

// Output is %output, or %extended-output when pause-after is set: bytes a
// pane wrote, with tmux's octal escapes decoded. Data may be invalid UTF-8.
type Output struct {
	Pane     string
	Data     []byte
	Extended bool  // it came as %extended-output
	AgeMS    int64 // how long tmux held the data, for %extended-output
}

// Pause is %pause: tmux stopped sending a pane's output and discarded what
// it held; output resumes only after refresh-client -A 'PANE:continue'.
type Pause struct{ Pane string }

// Continue is %continue: a paused pane's output resumes.
type Continue struct{ Pane string }

// LayoutChange is %layout-change for a window of the attached session.
type LayoutChange struct {
	Window, Layout, VisibleLayout, Flags string
}

// WindowAdd is %window-add, or %unlinked-window-add for a window linked into
// a session other than the attached one.
type WindowAdd struct {
	Window   string
	Unlinked bool
}

// WindowClose is %window-close or %unlinked-window-close.
type WindowClose struct {
	Window   string
	Unlinked bool
}

// WindowRenamed is %window-renamed or %unlinked-window-renamed. Names in
// notifications are as tmux stores and lists them: vis-encoded when set
// (a tab is \t, and up to 3.4 a $ is \$), exactly as #{window_name} prints.
type WindowRenamed struct {
	Window, Name string
	Unlinked     bool
}

// WindowPaneChanged is %window-pane-changed: a window's active pane changed.
type WindowPaneChanged struct{ Window, Pane string }

// PaneModeChanged is %pane-mode-changed: a pane entered or left a mode.
type PaneModeChanged struct{ Pane string }

// SessionChanged is %session-changed: this client attached to or switched
// to a session.
type SessionChanged struct{ Session, Name string }

// ClientSessionChanged is %client-session-changed: another client attached
// to or switched to a session.
type ClientSessionChanged struct{ Client, Session, Name string }

// ClientDetached is %client-detached: another client detached.
type ClientDetached struct{ Client string }

// SessionRenamed is %session-renamed.
type SessionRenamed struct{ Session, Name string }

// SessionsChanged is %sessions-changed: a session was created or destroyed.
type SessionsChanged struct{}

// SessionWindowChanged is %session-window-changed: a session's current
// window changed.
type SessionWindowChanged struct{ Session, Window string }

// SubscriptionChanged is %subscription-changed. Fields that do not apply
// are "-".
type SubscriptionChanged struct {
	Name, Session, Window, WindowIndex, Pane, Value string
}

// PasteBufferChanged is %paste-buffer-changed or %paste-buffer-deleted.
type PasteBufferChanged struct {
	Name    string
	Deleted bool
}

// Message is %message (tmux 3.4+).
type Message struct{ Text string }

// ConfigError is %config-error (tmux 3.4+).
type ConfigError struct{ Text string }

// Exit is %exit. Reason is empty for a detach, kill-server or a destroyed
// session. The connection ends after it.
type Exit struct{ Reason string }

// HookOutput is a reply block with flags 0: output of an after-* hook or of
// the client's start-up command, which belongs to no call.
type HookOutput struct {
	Lines []string
	Error bool // the block ended with %error
}

// Unknown is a line beginning with '%' that this package does not know, or
// that is malformed. Err says which.
type Unknown struct {
	Line string
	Err  error
}

// Stray is a line outside any block that does not begin with '%', such as
// the output of a hook command that printed.
type Stray struct{ Line string }

// Lost tells a [Subscription] that it was too slow and N notifications
// meant for it were dropped before this one.
type Lost struct{ N uint64 }

func (Output) notification()               {}
func (Pause) notification()                {}
func (Continue) notification()             {}
func (LayoutChange) notification()         {}
func (WindowAdd) notification()            {}
func (WindowClose) notification()          {}
func (WindowRenamed) notification()        {}
func (WindowPaneChanged) notification()    {}
func (PaneModeChanged) notification()      {}
func (SessionChanged) notification()       {}
func (ClientSessionChanged) notification() {}
func (ClientDetached) notification()       {}
func (SessionRenamed) notification()       {}
func (SessionsChanged) notification()      {}
func (SessionWindowChanged) notification() {}
func (SubscriptionChanged) notification()  {}
func (PasteBufferChanged) notification()   {}
func (Message) notification()              {}
func (ConfigError) notification()          {}
func (Exit) notification()                 {}
func (HookOutput) notification()           {}
func (Unknown) notification()              {}
func (Stray) notification()                {}
func (Lost) notification()                 {}
