package foreground

import (
	"strconv"
	"strings"
)

// State is what the kernel tells of a pane's foreground program.
type State struct {
	// Known reports whether the kernel told; Reading is meaningful only
	// then.
	Known bool
	// Reading reports whether the program is blocked reading the pane's
	// terminal.
	Reading bool
	// Wchan is what the thread that decided waits in, as the kernel names
	// it ("" when it runs).
	Wchan string
}

// Valid reports whether pid and tty can name a pane's process and
// terminal to the scripts: a number, and a path under /dev with no blank
// or backslash (a prober reads them as words of a line).
func Valid(pid, tty string) bool {
	_, err := strconv.Atoi(pid)
	return err == nil && strings.HasPrefix(tty, "/dev/") && !strings.ContainsAny(tty, " \t\r\n\\")
}

// Read returns what the report of the pane whose terminal is tty, as
// [ReadProc], the script of [Args] or a [Prober] gave it, says of the
// pane's foreground program.
func Read(report, tty string) State {
	return classify(parse(report), tty)
}

// Args are sh's arguments that print the report of the pane whose
// process is pid and whose terminal is tty, once.
func Args(pid, tty string) []string {
	return []string{"-c", oneScript, "sh", pid, tty}
}

// LoopArgs are sh's arguments that run a [Prober]'s loop.
func LoopArgs() []string { return []string{"-c", loopScript} }

// probeScript defines probe, which prints, for the pane whose process
// is $1 and whose terminal is $2, what parse reads. On Linux:
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
// for each process on the terminal. [ReadProc] prints the same in Go.
const probeScript = `probe() {
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

// oneScript runs probeScript once, for "$1" and "$2".
const oneScript = probeScript + `
probe "$1" "$2"
exit 0`

// loopScript runs probeScript for each line "PID TTY" it reads,
// and prints "end" after each report: one shell on an ssh host serves
// every look, with no ssh session each.
const loopScript = probeScript + `
while read -r a b; do probe "$a" "$b"; echo end; done`

// thread is one thread (on the BSDs, one process) of a report.
type thread struct {
	pid, pgrp int
	state     string   // Linux: one letter; BSD: ps's stat
	wchan     string   // "?" when it could not be read
	syscall   []string // /proc/PID/syscall's words; nil when it could not be read
	tpgid     int      // BSD only: the process's terminal's foreground group
}

// report is what oneScript or ReadProc printed, read.
type report struct {
	linux   bool
	bsd     bool
	tpgid   int
	stdin   string // Linux: what fd 0 of the pane's process is
	threads []thread
	fds     map[int]map[int]string // pid -> descriptor -> what it is
}

// parse reads a report; lines it does not know are skipped.
func parse(out string) report {
	var r report
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
			th := thread{pid: atoi(f[0]), state: f[2], pgrp: atoi(f[3]), wchan: f[4]}
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
			th := thread{pid: atoi(f[0]), pgrp: atoi(f[1]), tpgid: atoi(f[2]), state: f[3], wchan: "?"}
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
	classNeutral = iota // waits for a child, a futex, a signal
	classOther          // sleeps on something that is not the terminal
	classEvents         // waits on events, or where the kernel does not say
	classReading        // blocked reading the terminal
	classRunning        // running or in a disk wait
)

// classify decides what the foreground group of r does; tty is
// the pane's terminal.
func classify(r report, tty string) State {
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
		return State{}
	}
	seen := false
	var wchan [classRunning + 1]string // the wchan of a thread of each class
	var has [classRunning + 1]bool
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
		return State{}
	case has[classReading] && !has[classRunning]:
		return State{Known: true, Reading: true, Wchan: wchan[classReading]}
	case has[classEvents]:
		// An event loop: a thread that runs now and then (a timer, the
		// collector) says nothing of whether it waits for the terminal.
		return State{Wchan: wchan[classEvents]}
	case has[classRunning]:
		return State{Known: true}
	case has[classOther]:
		return State{Known: true, Wchan: wchan[classOther]}
	}
	return State{Known: true, Wchan: wchan[classNeutral]}
}

// linuxClass places a Linux thread; fds are its process's descriptors, as
// far as they were read.
func linuxClass(th thread, fds map[int]string, tty string) int {
	switch th.state {
	case "R", "D":
		return classRunning
	case "Z", "X", "x":
		return classNeutral
	}
	w := th.wchan
	switch {
	case w == "n_tty_read":
		return classReading
	case w == "wait_woken":
		// Also where a socket, inotify or a terminal write waits.
		if th.syscall != nil {
			if fd, ok := syscallArg(th.syscall, 1); ok && isTTY(fds[int(fd)], tty) {
				return classReading
			}
			if len(th.syscall) > 1 {
				return classOther // a wait on another descriptor
			}
			return classEvents
		}
		if fds == nil {
			return classEvents
		}
		for _, target := range fds {
			if strings.HasPrefix(target, "socket:") || strings.HasPrefix(target, "anon_inode:") {
				return classEvents
			}
		}
		return classReading
	case strings.HasPrefix(w, "poll_schedule_timeout"), w == "do_select", w == "core_sys_select":
		// select and pselect take the number of descriptors first, poll
		// a pointer: 1 is a select on descriptor 0 alone, with a read set.
		nfds, ok1 := syscallArg(th.syscall, 1)
		readfds, ok2 := syscallArg(th.syscall, 2)
		if ok1 && ok2 && nfds == 1 && readfds != 0 && isTTY(fds[0], tty) {
			return classReading
		}
		return classEvents
	case w == "do_wait", w == "kernel_wait4", strings.HasPrefix(w, "futex"), strings.HasPrefix(w, "do_sigtimedwait"), w == "sigsuspend":
		return classNeutral
	case strings.Contains(w, "epoll"), strings.HasPrefix(w, "ep_poll"), strings.Contains(w, "poll"), w == "?", w == "0", w == "":
		return classEvents
	}
	return classOther
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
func bsdClass(th thread) int {
	switch {
	case strings.HasPrefix(th.state, "R"), strings.HasPrefix(th.state, "D"), strings.HasPrefix(th.state, "U"):
		return classRunning
	case strings.HasPrefix(th.state, "Z"):
		return classNeutral
	}
	switch w := th.wchan; w {
	case "ttyin", "ttyraw", "ttycan":
		return classReading
	case "wait", "pause", "sigwait", "sigsusp", "uwait", "umtxn", "thrd_sleep", "futex":
		return classNeutral
	case "select", "poll", "kqread", "kqueue", "-", "?", "":
		return classEvents
	}
	return classOther
}

// atoi is s as a number, 0 if it is none.
func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
