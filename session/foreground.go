package session

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// What the kernel tells of a pane's foreground program: whether it is
// blocked reading the pane's terminal (a shell at its prompt, cat, a
// REPL's input line), running, or sleeping on something else.
//
// The foreground process group is the terminal's (tpgid, field 8 of
// /proc/PID/stat of the pane's process; ps -o tpgid on the BSDs and
// macOS). Each thread of its processes is placed in one class:
//
//   - running: state R or D.
//   - reading the terminal: on Linux, wchan n_tty_read (older kernels),
//     or wait_woken in a read of a descriptor that is the pane's terminal
//     (from /proc/PID/syscall; where that cannot be read, a process with
//     no socket and no anon_inode descriptor, the other users of
//     wait_woken), or select/pselect with one descriptor, 0, the pane's
//     terminal (readline's wait: bash, python3's REPL, vi); on the BSDs
//     and macOS, wchan ttyin (ttyraw, ttycan on NetBSD).
//   - waiting on events: epoll, poll, select of several descriptors,
//     kqueue, or a wait the kernel does not name: the program may be
//     waiting for the terminal among other things, which no one can tell
//     from outside (Node, Rust TUIs and other event loops).
//   - neutral: waiting for a child, a futex, a signal.
//   - anything else: sleeping on something that is not the terminal
//     (sleep, a pipe, a socket).
//
// A thread reading the terminal with none running makes the group
// reading; else a thread waiting on events makes it unknown (an event loop
// whose timer or collector thread runs a moment says nothing); else it is
// not reading.
//
// How it is read: on this machine under Linux, from /proc in this
// process (a few files, about 0.1 ms here); on the BSDs and macOS by
// foregroundScript, one sh; over ssh by foregroundLoop, one sh kept on the
// shared connection that answers each look ([fgProber]). The scripts print
// what the reading in Go prints. Not through the control channel: a
// control client gets run-shell's output after the command's %end, outside
// any reply, and run-shell -b's in the pane's view mode, which it puts the
// pane in (3.2a and next-3.8 alike).

// foregroundTimeout bounds one look at a pane's foreground program.
const foregroundTimeout = 3 * time.Second

// Foreground reports what the foreground program of the pane whose
// process is pid and whose terminal is tty is doing, as far as the kernel
// tells. It never fails: what cannot be read is not Known.
func (s *Server) Foreground(ctx context.Context, pid, tty string) Foreground {
	if _, err := strconv.Atoi(pid); err != nil || !strings.HasPrefix(tty, "/dev/") || strings.ContainsAny(tty, " \t\r\n\\") {
		return Foreground{}
	}
	ctx, cancel := context.WithTimeout(ctx, foregroundTimeout)
	defer cancel()
	report, err := s.host().foreground(ctx, s.opts, pid, tty)
	if err != nil {
		if l := s.opts.Logger; l != nil {
			l.Debug("cannot read the foreground program", "pane_pid", pid, "err", err)
		}
		return Foreground{}
	}
	return classifyForeground(parseForeground(report), tty)
}

// paneForeground is [Server.Foreground] of the pane with id pane.
func (s *Server) paneForeground(ctx context.Context, pane string) Foreground {
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{pane_pid} #{pane_tty}"))
	if err != nil {
		return Foreground{}
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 3 || f[0] != pane {
		return Foreground{}
	}
	return s.Foreground(ctx, f[1], f[2])
}

// runForegroundScript runs foregroundScript for the pane whose process is
// pid on tty with argv's sh, and returns what it printed.
func runForegroundScript(ctx context.Context, o *Options, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(o.Env)
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return string(out), err
}

// foregroundArgs are sh's arguments that run foregroundScript.
func foregroundArgs(pid, tty string) []string {
	return []string{"-c", foregroundScript, "sh", pid, tty}
}

// foregroundProbe defines probe, which prints, for the pane whose process
// is $1 and whose terminal is $2, what parseForeground reads. On Linux:
//
//	linux TPGID FD0        the terminal's foreground group; $2 if fd 0 of $1 is it, else -
//	t PID TID STATE PGRP WCHAN SYSCALL...
//	f PID FD -> WHAT        WHAT: $2, socket:, file (a file, pipe or other device) or anon_inode:
//
// for each thread of the group's leader, or, when it is gone or waits for
// a child, of each process of the group; the descriptors of a process
// only when a thread of it waits where a terminal read can. It forks
// nothing there (test -ef tells a descriptor that is the terminal). Elsewhere:
//
//	bsd
//	p PID PGID TPGID STAT WCHAN
//
// for each process on the terminal. [collectProc] prints the same in Go.
const foregroundProbe = `probe() {
p=$1 tty=$2
if [ -r "/proc/$p/stat" ] && [ -e "/proc/$p/wchan" ]; then
{ read -r l < "/proc/$p/stat"; } 2>/dev/null || return 0
set -- ${l##*) }
tp=$6 i=-
[ "/proc/$p/fd/0" -ef "$tty" ] && i=$tty
echo "linux $tp $i"
proc() {
q=$1 r=
for t in /proc/$q/task/*; do
{ read -r l < "$t/stat"; } 2>/dev/null || continue
set -- ${l##*) }
s=$1 g=$3 w= c=-
{ read -r w < "$t/wchan"; } 2>/dev/null
{ read -r c < "$t/syscall"; } 2>/dev/null
echo "t $q ${t##*/} $s $g ${w:-?} $c"
case $w in wait_woken|n_tty_read|poll_schedule_timeout*|do_select|core_sys_select) r=1;; esac
done
[ -n "$r" ] || return 0
for f in /proc/$q/fd/*; do
if [ "$f" -ef "$tty" ]; then k=$tty
elif [ -S "$f" ]; then k=socket:
elif [ -f "$f" ] || [ -d "$f" ] || [ -p "$f" ] || [ -c "$f" ]; then k=file
else k=anon_inode:
fi
echo "f $q ${f##*/} -> $k"
done
}
w=
{ read -r w < "/proc/$tp/wchan"; } 2>/dev/null
if [ -d "/proc/$tp" ] && [ "$w" != do_wait ] && [ "$w" != kernel_wait4 ]; then
proc "$tp"
else
for d in /proc/[0-9]*; do
{ read -r l < "$d/stat"; } 2>/dev/null || continue
set -- ${l##*) }
[ "$3" = "$tp" ] && proc "${d#/proc/}"
done
fi
else
echo bsd
ps -o pid=,pgid=,tpgid=,stat=,wchan= -t "$tty" </dev/null 2>/dev/null | while IFS= read -r l; do echo "p $l"; done
fi
}`

// foregroundScript runs foregroundProbe once, for "$1" and "$2".
const foregroundScript = foregroundProbe + `
probe "$1" "$2"
exit 0`

// foregroundLoop runs foregroundProbe for each line "PID TTY" it reads,
// and prints "end" after each report: one shell on an ssh host serves
// every look, with no ssh session each.
const foregroundLoop = foregroundProbe + `
while read -r a b; do probe "$a" "$b"; echo end; done`

// fgThread is one thread (on the BSDs, one process) of a report.
type fgThread struct {
	pid, pgrp int
	state     string   // Linux: one letter; BSD: ps's stat
	wchan     string   // "?" when it could not be read
	syscall   []string // /proc/PID/syscall's words; nil when it could not be read
	tpgid     int      // BSD only: the process's terminal's foreground group
}

// fgReport is what foregroundScript or collectProc printed, read.
type fgReport struct {
	linux   bool
	bsd     bool
	tpgid   int
	stdin   string // Linux: what fd 0 of the pane's process is
	threads []fgThread
	fds     map[int]map[int]string // pid -> descriptor -> what it is
}

// parseForeground reads a report; lines it does not know are skipped.
func parseForeground(out string) fgReport {
	var r fgReport
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		tag, rest, _ := strings.Cut(line, " ")
		f := strings.Fields(rest)
		switch {
		case tag == "linux" && len(f) >= 1:
			r.linux = true
			r.tpgid, _ = strconv.Atoi(f[0])
			if len(f) > 1 {
				r.stdin = f[1]
			}
		case tag == "bsd":
			r.bsd = true
		case tag == "t" && r.linux && len(f) >= 6:
			th := fgThread{pid: atoi(f[0]), state: f[2], pgrp: atoi(f[3]), wchan: f[4]}
			if f[5] != "-" {
				th.syscall = f[5:]
			}
			r.threads = append(r.threads, th)
		case tag == "f" && r.linux && len(f) >= 2:
			lhs, target, ok := strings.Cut(rest, " -> ")
			lf := strings.Fields(lhs)
			if !ok || len(lf) < 2 {
				continue
			}
			pid, err1 := strconv.Atoi(lf[0])
			fd, err2 := strconv.Atoi(lf[len(lf)-1])
			if err1 != nil || err2 != nil {
				continue
			}
			if r.fds == nil {
				r.fds = map[int]map[int]string{}
			}
			if r.fds[pid] == nil {
				r.fds[pid] = map[int]string{}
			}
			r.fds[pid][fd] = target
		case tag == "p" && r.bsd && len(f) >= 4:
			th := fgThread{pid: atoi(f[0]), pgrp: atoi(f[1]), tpgid: atoi(f[2]), state: f[3], wchan: "?"}
			if len(f) > 4 {
				th.wchan = f[4]
			}
			r.threads = append(r.threads, th)
		}
	}
	return r
}

// The classes of a thread.
const (
	fgNeutral = iota // waits for a child, a futex, a signal
	fgOther          // sleeps on something that is not the terminal
	fgEvents         // waits on events, or where the kernel does not say
	fgReading        // blocked reading the terminal
	fgRunning        // running or in a disk wait
)

// classifyForeground decides what the foreground group of r does; tty is
// the pane's terminal.
func classifyForeground(r fgReport, tty string) Foreground {
	tpgid := r.tpgid
	if r.bsd {
		for _, th := range r.threads {
			if th.tpgid > 0 {
				tpgid = th.tpgid
				break
			}
		}
	}
	if tpgid <= 0 || (r.linux && r.stdin != tty) {
		return Foreground{}
	}
	seen := false
	var wchan [fgRunning + 1]string // the wchan of a thread of each class
	var has [fgRunning + 1]bool
	for _, th := range r.threads {
		if th.pgrp != tpgid {
			continue
		}
		seen = true
		var c int
		if r.linux {
			c = linuxClass(th, r.fds[th.pid], tty)
		} else {
			c = bsdClass(th)
		}
		if !has[c] {
			has[c], wchan[c] = true, th.wchan
		}
	}
	switch {
	case !seen:
		return Foreground{}
	case has[fgReading] && !has[fgRunning]:
		return Foreground{Known: true, Reading: true, Wchan: wchan[fgReading]}
	case has[fgEvents]:
		// An event loop: a thread that runs now and then (a timer, the
		// collector) says nothing of whether it waits for the terminal.
		return Foreground{Wchan: wchan[fgEvents]}
	case has[fgRunning]:
		return Foreground{Known: true}
	case has[fgOther]:
		return Foreground{Known: true, Wchan: wchan[fgOther]}
	}
	return Foreground{Known: true, Wchan: wchan[fgNeutral]}
}

// linuxClass places a Linux thread; fds are its process's descriptors, as
// far as they were read.
func linuxClass(th fgThread, fds map[int]string, tty string) int {
	switch th.state {
	case "R", "D":
		return fgRunning
	case "Z", "X", "x":
		return fgNeutral
	}
	w := th.wchan
	switch {
	case w == "n_tty_read":
		return fgReading
	case w == "wait_woken":
		// Also where a socket, inotify or a terminal write waits.
		if th.syscall != nil {
			if fd, ok := syscallArg(th.syscall, 1); ok && isTTY(fds[int(fd)], tty) {
				return fgReading
			}
			if len(th.syscall) > 1 {
				return fgOther // a wait on another descriptor
			}
			return fgEvents
		}
		if fds == nil {
			return fgEvents
		}
		for _, target := range fds {
			if strings.HasPrefix(target, "socket:") || strings.HasPrefix(target, "anon_inode:") {
				return fgEvents
			}
		}
		return fgReading
	case strings.HasPrefix(w, "poll_schedule_timeout"), w == "do_select", w == "core_sys_select":
		// select and pselect take the number of descriptors first, poll
		// a pointer: 1 is a select on descriptor 0 alone, with a read set.
		nfds, ok1 := syscallArg(th.syscall, 1)
		readfds, ok2 := syscallArg(th.syscall, 2)
		if ok1 && ok2 && nfds == 1 && readfds != 0 && isTTY(fds[0], tty) {
			return fgReading
		}
		return fgEvents
	case w == "do_wait", w == "kernel_wait4", strings.HasPrefix(w, "futex"), strings.HasPrefix(w, "do_sigtimedwait"), w == "sigsuspend":
		return fgNeutral
	case strings.Contains(w, "epoll"), strings.HasPrefix(w, "ep_poll"), strings.Contains(w, "poll"), w == "?", w == "0", w == "":
		return fgEvents
	}
	return fgOther
}

// syscallArg returns word i of /proc/PID/syscall (0 is the call's
// number, 1 its first argument), a hexadecimal number.
func syscallArg(words []string, i int) (uint64, bool) {
	if i >= len(words) {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(words[i], "0x"), 16, 64)
	return n, err == nil
}

// isTTY reports whether target, what a descriptor is, is the terminal
// tty.
func isTTY(target, tty string) bool {
	return target != "" && (target == tty || target == "/dev/tty")
}

// bsdClass places a process as ps shows it on the BSDs and macOS.
func bsdClass(th fgThread) int {
	switch {
	case strings.HasPrefix(th.state, "R"), strings.HasPrefix(th.state, "D"), strings.HasPrefix(th.state, "U"):
		return fgRunning
	case strings.HasPrefix(th.state, "Z"):
		return fgNeutral
	}
	switch w := th.wchan; w {
	case "ttyin", "ttyraw", "ttycan":
		return fgReading
	case "wait", "pause", "sigwait", "sigsusp", "uwait", "umtxn", "thrd_sleep", "futex":
		return fgNeutral
	case "select", "poll", "kqread", "kqueue", "-", "?", "":
		return fgEvents
	}
	return fgOther
}
