package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// errUsage marks a command line or environment the process cannot start
// with; run exits 2 on it.
var errUsage = errors.New("usage error")

// Exit codes.
const (
	exitOK        = 0
	exitFailure   = 1 // startup, protocol or shutdown failure; a failed `call`
	exitUsage     = 2 // bad flags, bad --tool, bad LIBTMUX_SUPPRESS_HISTORY
	exitInterrupt = 130
)

// Wait ceiling (LIBTMUX_MCP_WAIT_MAX_SECONDS), as libtmux-mcp: default
// mcp.DefaultWaitMax (30 s), clamped to [1, 120] s.
const (
	waitMaxDefault = mcp.DefaultWaitMax
	waitMaxMin     = 1 * time.Second
	waitMaxMax     = 120 * time.Second
)

// envConfigFile is a test aid, deliberately not in --help: the tmux
// configuration file passed as -f to every tmux the server starts (tests
// use /dev/null so a user's ~/.tmux.conf cannot change their servers).
const envConfigFile = "TMUX_MCP_CONFIG_FILE"

// config is everything the flags and the environment ask for.
type config struct {
	safety          string   // LIBTMUX_SAFETY / --safety; mcp fails closed on a bad value
	toolsets        string   // LIBTMUX_TOOLSETS / --toolsets; mcp checks it, and that safety is not set too
	tools           []string // --tool, else LIBTMUX_TOOLS; mcp checks names
	excludeTools    []string // --exclude-tool, else LIBTMUX_EXCLUDE_TOOLS; mcp checks names
	scope           string   // TMUX_MCP_SCOPE / --scope; mcp fails closed on a bad value
	allowSessions   []string // TMUX_MCP_ALLOW_SESSION, then --allow-session; mcp checks globs
	socket          session.Socket
	sockets         []string // --sockets / TMUX_MCP_SOCKETS: names reachable besides the default; nil = every socket (stdio), none (tokens)
	tmux            string   // tmux binary; "" = tmux on PATH
	configFile      string   // TMUX_MCP_CONFIG_FILE
	waitMax         time.Duration
	suppressHistory bool
	teardownOnExit  bool
	pipes           bool          // the control client on pipes, not a pty
	replyDeadline   time.Duration // --reply-deadline: 0 = session's default, < 0 = none
	ssh             []string      // LIBTMUX_SSH / --ssh, split: ssh options, destination last; nil = local
	selfPane        string        // TMUX_PANE
	selfSocketPath  string        // from TMUX

	// Serving many agents (http.go).
	httpAddr   string        // --http: "" serves stdio
	authTokens string        // --auth-tokens FILE
	noAuth     bool          // --no-auth (loopback only)
	newToken   bool          // --rotate-token: replace the kept token with a new one
	tlsCert    string        // --tls-cert
	tlsKey     string        // --tls-key
	httpIdle   time.Duration // --http-idle-timeout: an idle HTTP session ends after it
	httpLimits httpLimits    // --http-max-conns, --http-max-sessions, TMUX_MCP_HTTP_TIMEOUTS
	tokenDir   string        // where a made token is kept

	// From the process, not the flags (see readProcess).
	env       []string // this process's environment, for tmux and ssh
	socketDir string   // where tmux keeps this user's named sockets
	homeDir   string   // what "~" means in a start directory; "" if unknown

	help, version bool

	command  string   // "" (serve), "tools" or "call"
	callTool string   // call: the tool; tools: the tool to describe, or ""
	callArgs []string // call: key=value pairs

	warnings []string // for stderr once a logger exists
}

// option documents one setting for --help and the README; both are
// rendered from this table so they cannot disagree.
type option struct {
	flag string // "--name ARG", or "" for environment-only settings
	env  string // the environment variable the flag overrides, if any
	doc  string
}

var options = []option{
	{"--safety TIER", "LIBTMUX_SAFETY", "Safety tier: readonly, mutating (default) or destructive. Off-tier tools are neither listed nor callable. A --safety flag that names no tier exits 2, listing the tiers; an invalid LIBTMUX_SAFETY fails closed to readonly, with a warning."},
	{"--toolsets SET", "LIBTMUX_TOOLSETS", "libtmux-mcp's toolsets, instead of a tier: a comma-separated set of inspect (read), manage (sessions, windows, layouts, buffers), execute (input, run_command, set_option, set_environment; also split_window's shell and the environment arguments) and teardown (the kill tools, clear_pane, delete_buffer). readonly = inspect, mutating = inspect,manage,execute, destructive = all four. A tier and toolsets both set exits 2 (a flag replaces both variables); an unknown toolset exits 2."},
	{"--tool NAME", "LIBTMUX_TOOLS", "Expose exactly this tool; repeat for more (the variable: names separated by commas). Replaces the tier's or the toolsets' set. An unknown or repeated name exits 2, naming the nearest tool."},
	{"--exclude-tool NAME", "LIBTMUX_EXCLUDE_TOOLS", "Leave this tool out; repeat for more (the variable: names separated by commas). An unknown name exits 2."},
	{"--scope SCOPE", "TMUX_MCP_SCOPE", "Which sessions the tools reach: all (default), owned-write (sees everything, changes only the sessions this process created), owned (sees and changes only those) or tagged (owned, plus the sessions, windows and panes a person tagged with the tmux user option @mcp). A --scope flag that names no scope exits 2, listing them; an invalid TMUX_MCP_SCOPE fails closed to owned, with a warning. See docs/scopes.md."},
	{"--allow-session GLOB", "TMUX_MCP_ALLOW_SESSION", "Borrowed sessions whose name matches GLOB (* ? [...]) join the scope; repeat for more. The variable holds globs separated by ':', which no session name contains. A bad glob exits 2."},
	{"--socket NAME", "LIBTMUX_SOCKET", "Socket name (tmux -L) of the server used when a call names none."},
	{"--socket-path PATH", "LIBTMUX_SOCKET_PATH", "Socket path (tmux -S); wins over a socket name. With neither, the server this process runs in (from TMUX), else tmux's default."},
	{"--sockets LIST", "TMUX_MCP_SOCKETS", "The other tmux sockets, by name, that a call's socket_name may reach, separated by commas; * for every one. Unset: over stdio every socket, over --http only the default one (a token's sockets= widens it). A socket_name out of reach is refused and starts no server. See docs/scopes.md."},
	{"--tmux PATH", "LIBTMUX_TMUX_BIN", "The tmux binary. Default: tmux on PATH."},
	{"--ssh \"[OPTIONS] DEST\"", "LIBTMUX_SSH", "Drive tmux on another host through one ssh connection: ssh's options and the destination, last, split as a shell splits words. The socket and --tmux then name things on that host. Never prompts (BatchMode); see docs/remote.md."},
	{"--teardown-on-exit", "", "When stdin closes (or on SIGTERM/SIGINT), kill the sessions this process created with create_session, and nothing else."},
	{"--pipes", "", "Run the control client on pipes instead of a pty: 20-38 µs less per tool call (measured), and tmux list-clients shows it with no tty."},
	{"--reply-deadline SECONDS", "TMUX_MCP_REPLY_DEADLINE", "Liveness deadline: when tmux leaves a command unanswered this long (a stopped server, or a prompt or menu holding the control client), the calls in flight answer connection_lost and the client is replaced. Default 10; 0 turns it off."},
	{"--http ADDR", "", "Serve MCP over streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:7777) instead of stdio, to any number of clients sharing one engine. Every request needs a bearer token; see Serving many agents."},
	{"--auth-tokens FILE", "", "With --http: the bearer tokens, one a line: TOKEN [safety=TIER] [scope=SCOPE] [name=LABEL] [sockets=NAME,...]. Refused unless only its owner can read it. Without it, a token is made and kept in a file only you can read (~/.local/state/tmux-mcp/, or $XDG_STATE_HOME/tmux-mcp/), used again at the next start; stderr says where."},
	{"--rotate-token", "", "With --http and no --auth-tokens: replace the kept token with a new one; clients need the new one."},
	{"--no-auth", "", "With --http on a loopback address only: accept requests without a token, for local testing. Warns."},
	{"--tls-cert FILE", "", "With --http: serve HTTPS with this certificate (PEM), and --tls-key. Required, with --auth-tokens, on any address but loopback."},
	{"--tls-key FILE", "", "The private key (PEM) of --tls-cert."},
	{"--http-idle-timeout SECONDS", "", "With --http: an MCP session that sends nothing this long is closed, its subscriptions with it. Default 1800."},
	{"--http-max-sessions N", "", "With --http: MCP sessions one token may hold at once. A new one past it closes the token's least recently used session that has no request open; when every one has, it is refused (429). Default 100."},
	{"--http-max-conns N", "", "With --http: connections at once, a quarter of them for clients that have not yet shown a valid token. Default: half the descriptors the process may open, at most 1024. See docs/http.md."},
	{"", "LIBTMUX_MCP_WAIT_MAX_SECONDS", "Ceiling on any one wait, in seconds: default 30, clamped to [1, 120]. A longer timeout argument is clamped, not refused."},
	{"", "LIBTMUX_SUPPRESS_HISTORY", "run_command's default for suppress_history: unset or 1 = on, 0 = off. Anything else exits 2."},
	{"", "TMUX, TMUX_PANE", "Set by tmux inside a pane: the pane, window, session and server this process runs in, which the kill and respawn tools refuse."},
	{"--help", "", "Print this help and exit. Touches no tmux."},
	{"--version", "", "Print the version and exit. Touches no tmux."},
}

// usage is the --help text.
func usage(w io.Writer) {
	fmt.Fprint(w, `tmux-mcp serves tmux to AI agents over the Model Context Protocol (stdio,
or streamable HTTP with --http).

Usage:
  tmux-mcp [flags]                            serve MCP on stdin/stdout
  tmux-mcp --http ADDR [flags]                serve MCP at http://ADDR/mcp
  tmux-mcp [flags] tools                      list the tools the flags expose
  tmux-mcp [flags] tools TOOL                 describe a tool and its arguments
  tmux-mcp [flags] call TOOL [key=value ...]  run one tool, print its result

In call, a value is parsed as JSON when it parses (5, true, ["a"], {"k":"v"},
"5") and is a string otherwise. A tool error prints its envelope and exits 1.

Flags override the environment variable beside them:

`)
	for _, o := range options {
		if o.flag == "" {
			continue
		}
		head := "  " + o.flag
		if o.env != "" {
			head += "  (" + o.env + ")"
		}
		fmt.Fprintf(w, "%s\n%s", head, wrap(o.doc, "      ", 78))
	}
	fmt.Fprint(w, "\nEnvironment only:\n\n")
	for _, o := range options {
		if o.flag == "" {
			fmt.Fprintf(w, "  %s\n%s", o.env, wrap(o.doc, "      ", 78))
		}
	}
	fmt.Fprint(w, `
Logs and one audit line per tool call go to stderr; stdout carries only the
protocol. Exit status: 0 when stdin closes or on SIGTERM, 1 on a failure (or
a failed call), 2 on a usage error, 130 on SIGINT.
`)
}

// wrap breaks text into lines of at most width bytes, each starting with
// indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// toolList is the repeatable --tool flag.
type toolList []string

func (l *toolList) String() string { return strings.Join(*l, ",") }
func (l *toolList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// readProcess fills in what session needs to know about this process and
// may not read itself, since only cmd reads the environment: what the
// tmux and ssh it starts inherit, the directory tmux keeps this user's
// named sockets in, and the home directory.
func (c *config) readProcess(getenv func(string) string) {
	c.env = os.Environ()
	c.socketDir = session.SocketDir(getenv("TMUX_TMPDIR"), os.Getuid())
	c.homeDir, _ = os.UserHomeDir() // none: "~" is then refused, as it was
}

// parseConfig reads the environment through getenv, then the flags, which
// override it. Errors wrap errUsage.
func parseConfig(args []string, getenv func(string) string) (*config, error) {
	c, err := configFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	f := newFlags(c, getenv("LIBTMUX_SSH"))
	if err := f.parse(args); err != nil {
		return nil, err
	}
	if err := f.parseCommand(); err != nil {
		return nil, err
	}
	c.applyFlags(f, getenv)
	if err := f.checkChoices(); err != nil {
		return nil, err
	}
	if err := c.parseSSH(f.ssh); err != nil {
		return nil, err
	}
	if err := c.checkHTTP(); err != nil {
		return nil, err
	}
	return c, nil
}

// configFromEnv reads the settings that have no flag, and the defaults of
// those that do.
func configFromEnv(getenv func(string) string) (*config, error) {
	c := &config{
		scope:           getenv("TMUX_MCP_SCOPE"),
		tmux:            getenv("LIBTMUX_TMUX_BIN"),
		configFile:      getenv(envConfigFile),
		selfPane:        getenv("TMUX_PANE"),
		selfSocketPath:  selfSocketPath(getenv("TMUX")),
		suppressHistory: true,
		httpIdle:        httpIdleDefault,
		httpLimits:      defaultHTTPLimits(),
		tokenDir:        tokenDir(getenv),
	}
	switch v := getenv("LIBTMUX_SUPPRESS_HISTORY"); v {
	case "", "1":
	case "0":
		c.suppressHistory = false
	default:
		return nil, fmt.Errorf("%w: LIBTMUX_SUPPRESS_HISTORY=%q: want 1 (on) or 0 (off)", errUsage, v)
	}
	c.waitMax = parseWaitMax(getenv("LIBTMUX_MCP_WAIT_MAX_SECONDS"), &c.warnings)
	if err := parseHTTPTimeouts(getenv(envHTTPTimeouts), &c.httpLimits); err != nil {
		return nil, err
	}
	if v := getenv("TMUX_MCP_REPLY_DEADLINE"); v != "" {
		d, err := parseReplyDeadline(v)
		if err != nil {
			// A misspelt deadline should not stop the server.
			c.warnings = append(c.warnings, fmt.Sprintf("TMUX_MCP_REPLY_DEADLINE=%q: %v; using the default", v, err))
		}
		c.replyDeadline = d
	}
	return c, nil
}

// cmdFlags are the command line's flags: most set the config directly,
// these are applied against the environment afterwards (applyFlags).
type cmdFlags struct {
	fs                      *flag.FlagSet
	c                       *config
	socket, socketPath, ssh string
	safety, toolsets        string
	tools, exclude, allow   toolList
	sockets                 string
}

// newFlags declares the flags, over c's values from the environment.
func newFlags(c *config, ssh string) *cmdFlags {
	f := &cmdFlags{fs: flag.NewFlagSet("tmux-mcp", flag.ContinueOnError), c: c, ssh: ssh}
	fs := f.fs
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&f.safety, "safety", "", "")
	fs.StringVar(&f.toolsets, "toolsets", "", "")
	fs.Var(&f.tools, "tool", "")
	fs.Var(&f.exclude, "exclude-tool", "")
	fs.StringVar(&c.scope, "scope", c.scope, "")
	fs.Var(&f.allow, "allow-session", "")
	fs.StringVar(&f.socket, "socket", "", "")
	fs.StringVar(&f.socketPath, "socket-path", "", "")
	fs.StringVar(&f.sockets, "sockets", "", "")
	fs.StringVar(&c.tmux, "tmux", c.tmux, "")
	fs.BoolVar(&c.teardownOnExit, "teardown-on-exit", false, "")
	fs.BoolVar(&c.pipes, "pipes", false, "")
	fs.Func("reply-deadline", "", func(v string) (err error) {
		c.replyDeadline, err = parseReplyDeadline(v)
		return err
	})
	fs.StringVar(&f.ssh, "ssh", f.ssh, "")
	fs.StringVar(&c.httpAddr, "http", "", "")
	fs.StringVar(&c.authTokens, "auth-tokens", "", "")
	fs.BoolVar(&c.noAuth, "no-auth", false, "")
	fs.BoolVar(&c.newToken, "rotate-token", false, "")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "")
	fs.StringVar(&c.tlsKey, "tls-key", "", "")
	fs.Func("http-idle-timeout", "", func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
			return fmt.Errorf("not a number of seconds > 0")
		}
		c.httpIdle = max(time.Duration(f*float64(time.Second)), time.Millisecond)
		return nil
	})
	positive := func(dst *int, least int) func(string) error {
		return func(v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < least {
				return fmt.Errorf("want a whole number >= %d", least)
			}
			*dst = n
			return nil
		}
	}
	fs.Func("http-max-sessions", "", positive(&c.httpLimits.maxSessions, 1))
	fs.Func("http-max-conns", "", positive(&c.httpLimits.maxConns, 2))
	fs.BoolVar(&c.help, "help", false, "")
	fs.BoolVar(&c.help, "h", false, "")
	fs.BoolVar(&c.version, "version", false, "")
	return f
}

// parse parses args; -h and --help set help rather than fail.
func (f *cmdFlags) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.c.help = true
			return nil
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}

// parseCommand reads the subcommand and its arguments after the flags.
// Flags may also follow the subcommand: tmux-mcp tools --safety readonly.
func (f *cmdFlags) parseCommand() error {
	c, fs := f.c, f.fs
	rest := fs.Args()
	if len(rest) == 0 || c.help || c.version {
		return nil
	}
	c.command = rest[0]
	if c.command != "tools" && c.command != "call" {
		return fmt.Errorf("%w: unknown command %q (want tools or call)", errUsage, c.command)
	}
	if err := f.parse(rest[1:]); err != nil {
		return err
	}
	if c.command == "call" {
		if fs.NArg() == 0 {
			return fmt.Errorf("%w: call needs a tool name: tmux-mcp call TOOL [key=value ...]", errUsage)
		}
		c.callTool, c.callArgs = fs.Arg(0), fs.Args()[1:]
		return nil
	}
	if fs.NArg() > 0 {
		c.callTool = fs.Arg(0)
		if err := f.parse(fs.Args()[1:]); err != nil {
			return err
		}
	}
	if fs.NArg() > 0 && c.callTool != "" {
		return fmt.Errorf("%w: tools takes at most one tool name, got %q and %q", errUsage, c.callTool, fs.Args())
	}
	return nil
}

// checkChoices refuses a --safety or --scope flag that names no tier or
// scope, listing those that exist: a flag is typed now, by the person
// starting the process, and is told at once. The variables keep the
// contract's fail-closed reading (a warning, then the narrowest choice),
// for a client configuration that cannot show a usage error.
func (f *cmdFlags) checkChoices() error {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if _, ok := mcp.ParseTier(f.safety); set["safety"] && !ok {
		return fmt.Errorf("%w: --safety %q: want readonly, mutating or destructive", errUsage, f.safety)
	}
	if _, ok := mcp.ParseScope(f.c.scope); set["scope"] && !ok {
		return fmt.Errorf("%w: --scope %q: want all, owned-write, owned or tagged", errUsage, f.c.scope)
	}
	return nil
}

// applyFlags settles what flags and environment variables both set.
func (c *config) applyFlags(f *cmdFlags, getenv func(string) string) {
	// The tier and the toolsets answer one question: a flag for either
	// replaces both variables, so --toolsets is not beaten by an inherited
	// LIBTMUX_SAFETY. Both flags, or both variables, are mcp's usage error.
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["safety"] || set["toolsets"] {
		c.safety, c.toolsets = f.safety, f.toolsets
	} else {
		c.safety, c.toolsets = getenv("LIBTMUX_SAFETY"), getenv("LIBTMUX_TOOLSETS")
	}
	c.tools = f.tools
	if len(f.tools) == 0 {
		c.tools = splitList(getenv("LIBTMUX_TOOLS"), ",")
	}
	c.excludeTools = f.exclude
	if len(f.exclude) == 0 {
		c.excludeTools = splitList(getenv("LIBTMUX_EXCLUDE_TOOLS"), ",")
	}
	// --allow-session replaces the environment's list, as flags do.
	c.allowSessions = f.allow
	if len(f.allow) == 0 {
		c.allowSessions = splitList(getenv("TMUX_MCP_ALLOW_SESSION"), ":")
	}

	// --sockets replaces the environment's list; either, set, narrows the
	// reach even to none but the default ("" is an empty list).
	switch {
	case set["sockets"]:
		c.sockets = append([]string{}, splitList(f.sockets, ",")...)
	case getenv("TMUX_MCP_SOCKETS") != "":
		c.sockets = append([]string{}, splitList(getenv("TMUX_MCP_SOCKETS"), ",")...)
	}

	// The socket: flags as a group override the environment as a group, so
	// --socket is not beaten by an inherited LIBTMUX_SOCKET_PATH. A path wins
	// over a name, as in tmux. With neither, a process inside tmux drives the
	// server it runs in, as tmux itself would.
	switch {
	case f.socket != "" || f.socketPath != "":
		c.socket = session.Socket{Name: f.socket, Path: f.socketPath}
	case getenv("LIBTMUX_SOCKET") != "" || getenv("LIBTMUX_SOCKET_PATH") != "":
		c.socket = session.Socket{Name: getenv("LIBTMUX_SOCKET"), Path: getenv("LIBTMUX_SOCKET_PATH")}
	case c.selfSocketPath != "":
		c.socket = session.Socket{Path: c.selfSocketPath}
	}
	if c.socket.Path != "" {
		c.socket.Name = ""
	}
	c.httpLimits.maxUnauth = unauthCap(c.httpLimits.maxConns)
}

// parseWaitMax reads LIBTMUX_MCP_WAIT_MAX_SECONDS: a number of seconds,
// clamped to [1, 120]. Unset means 30; an unreadable value is not fatal
// (a misspelt ceiling should not stop the server) and also means 30.
func parseWaitMax(v string, warnings *[]string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return waitMaxDefault
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		*warnings = append(*warnings, fmt.Sprintf("LIBTMUX_MCP_WAIT_MAX_SECONDS=%q is not a number of seconds; using %v", v, waitMaxDefault))
		return waitMaxDefault
	}
	d := time.Duration(f * float64(time.Second))
	switch {
	case d < waitMaxMin:
		*warnings = append(*warnings, fmt.Sprintf("LIBTMUX_MCP_WAIT_MAX_SECONDS=%s is below %v; using %v", v, waitMaxMin, waitMaxMin))
		d = waitMaxMin
	case d > waitMaxMax:
		*warnings = append(*warnings, fmt.Sprintf("LIBTMUX_MCP_WAIT_MAX_SECONDS=%s is above %v; using %v", v, waitMaxMax, waitMaxMax))
		d = waitMaxMax
	}
	return d
}

// parseReplyDeadline reads a liveness deadline in seconds: a positive
// number, or 0 for none (returned as -1, session's "none").
func parseReplyDeadline(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0:
		return 0, fmt.Errorf("not a number of seconds >= 0")
	case f == 0:
		return -1, nil
	}
	return max(time.Duration(f*float64(time.Second)), time.Millisecond), nil
}

// selfSocketPath extracts the socket path from a TMUX value
// ("path,pid,session").
func selfSocketPath(tmuxEnv string) string {
	path, _, _ := strings.Cut(tmuxEnv, ",")
	return path
}

// splitList splits a variable's list at sep, dropping empty items and the
// spaces around each.
func splitList(v, sep string) []string {
	var out []string
	for _, item := range strings.Split(v, sep) {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
