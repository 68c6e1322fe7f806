package foreground

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Reports as this machine's /proc gave them (Linux 6.18, tmux panes on
// /dev/pts/5), and as ps prints them on FreeBSD and macOS.
func TestRead(t *testing.T) {
	const tty = "/dev/pts/5"
	for _, tc := range []struct {
		name, report string
		want         State
	}{
		{"cat reads", `linux 27757 /dev/pts/5
t 27757 27757 S 27757 wait_woken 0 0x0 0x7fb410cb1000 0x20000 0x7fb410d44b60 0xffffffff 0x0 0x7ffcab3a5878 0x7fb410e2d2ad
f 27757 lrwx------ 1 root root 64 Dec  2 04:30 0 -> /dev/pts/5
f 27757 lrwx------ 1 root root 64 Dec  2 04:30 1 -> /dev/pts/5
`, State{Known: true, Reading: true, Wchan: "wait_woken"}},
		{"less reads /dev/tty on fd 3", `linux 26971 /dev/pts/5
t 26971 26971 S 26971 wait_woken 0 0x3 0x7ffff4736317 0x1 0x24 0x564a72d78222 0x7ffff4735d20 0x7ffff4736238 0x7fae92b622ad
f 26971 0 -> /dev/pts/5
f 26971 3 -> /dev/pts/5
f 26971 4 -> /etc/passwd
`, State{Known: true, Reading: true, Wchan: "wait_woken"}},
		{"bash's readline: pselect6 of fd 0", `linux 26735 /dev/pts/5
t 26735 26735 S 26735 poll_schedule_timeout.constprop.0 270 0x1 0x7ffc7a5ad170 0x0 0x0 0x0 0x7ffc7a5ad0a0 0x7ffc7a5ad060 0x7f9732865aec
f 26735 0 -> /dev/pts/5
f 26735 255 -> /dev/pts/5
`, State{Known: true, Reading: true, Wchan: "poll_schedule_timeout.constprop.0"}},
		{"vi with a signal thread", `linux 27236 /dev/pts/5
t 27236 27236 S 27236 poll_schedule_timeout.constprop.0 270 0x1 0x56406ea98600 0x56406ea98580 0x56406ea98500 0x7ffcd49cb340 0x0 0x7ffcd49cb330 0x7f8cf00b39ec
t 27236 27249 S 27236 do_sigtimedwait.isra.0 128 0x7f8cf0146d40 0x7f8cefeb4e90 0x0 0x8 0x0 0x7ffcd49cb527 0x7f8cefeb4e50 0x7f8cefff1c82
f 27236 0 -> /dev/pts/5
`, State{Known: true, Reading: true, Wchan: "poll_schedule_timeout.constprop.0"}},
		{"a read on a socket is not the terminal", `linux 300 /dev/pts/5
t 300 300 S 300 wait_woken 0 0x3 0x7ffff4736317 0x1
f 300 0 -> /dev/pts/5
f 300 3 -> socket:[12345]
`, State{Known: true, Wchan: "wait_woken"}},
		{"wait_woken without syscall, a socket open: unknown", `linux 300 /dev/pts/5
t 300 300 S 300 wait_woken -
f 300 0 -> /dev/pts/5
f 300 3 -> socket:[12345]
`, State{Wchan: "wait_woken"}},
		{"wait_woken without syscall, only the terminal and files", `linux 300 /dev/pts/5
t 300 300 S 300 wait_woken -
f 300 0 -> /dev/pts/5
f 300 4 -> /etc/passwd
`, State{Known: true, Reading: true, Wchan: "wait_woken"}},
		{"select without syscall: unknown", `linux 26735 /dev/pts/5
t 26735 26735 S 26735 poll_schedule_timeout.constprop.0 -
f 26735 0 -> /dev/pts/5
`, State{Wchan: "poll_schedule_timeout.constprop.0"}},
		{"poll of one descriptor (a pointer first): unknown", `linux 40 /dev/pts/5
t 40 40 S 40 poll_schedule_timeout.constprop.0 7 0x7ffd1000 0x1 0xffffffff
f 40 0 -> /dev/pts/5
`, State{Wchan: "poll_schedule_timeout.constprop.0"}},
		{"node: epoll", `linux 29864 /dev/pts/5
t 29864 29864 S 29864 do_epoll_wait 232 0x11 0x7ffc 0x400 0xffffffff
t 29864 29865 S 29864 futex_wait_queue 202 0x0
`, State{Wchan: "do_epoll_wait"}},
		{"codex while it works: epoll, futexes and a running thread", `linux 400 /dev/pts/5
t 400 400 S 400 futex_do_wait 202 0x0
t 400 401 R 400 0 running
t 400 402 S 400 do_epoll_wait 232 0x3
`, State{Wchan: "do_epoll_wait"}},
		{"sleep", `linux 30458 /dev/pts/5
t 30458 30458 S 30458 hrtimer_nanosleep 230 0x0 0x0 0x7ffd 0x0
`, State{Known: true, Wchan: "hrtimer_nanosleep"}},
		{"a busy loop", `linux 29035 /dev/pts/5
t 29035 29035 R 29035 0 running
`, State{Known: true}},
		{"a reading thread and a running one", `linux 50 /dev/pts/5
t 50 50 S 50 wait_woken 0 0x0
t 50 51 R 50 0 running
f 50 0 -> /dev/pts/5
`, State{Known: true}},
		{"ls | less: the leader gone, less reads", `linux 30301 /dev/pts/5
t 30302 30302 S 30301 wait_woken 0 0x3 0x1
f 30302 3 -> /dev/pts/5
`, State{Known: true, Reading: true, Wchan: "wait_woken"}},
		{"a script waits for python3 reading", `linux 70 /dev/pts/5
t 70 70 S 70 do_wait 61 0xffffffff
t 71 71 S 70 wait_woken 0 0x0 0x1
t 99 99 R 98 0 running
f 71 0 -> /dev/pts/5
`, State{Known: true, Reading: true, Wchan: "wait_woken"}},
		{"another process on the pane's pid: stdin is not the pane's", `linux 27757 /dev/pts/9
t 27757 27757 S 27757 wait_woken 0 0x0
f 27757 0 -> /dev/pts/9
`, State{}},
		{"nothing of the group", `linux 27757 /dev/pts/5
`, State{}},
		{"empty", ``, State{}},
		{"FreeBSD cat", `bsd
p  1201  1201  1305 Ss   wait
p  1305  1305  1201 S+   ttyin
`, State{Known: true, Reading: true, Wchan: "ttyin"}},
		{"macOS sleep", `bsd
p  1201  1201  1305 Ss   -
p  1305  1305  1305 S+   nanslp
`, State{Known: true, Wchan: "nanslp"}},
		{"FreeBSD node", `bsd
p  1201  1201  1305 Ss   wait
p  1305  1305  1305 S+   kqread
`, State{Wchan: "kqread"}},
		{"OpenBSD busy", `bsd
p  1201  1201  1305 Ss   wait
p  1305  1305  1305 R+   -
`, State{Known: true, Wchan: "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Read(tc.report, tty)
			if tc.name == "OpenBSD busy" {
				got.Wchan = tc.want.Wchan // a running process has no wait to name
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestScriptMatchesProc: on Linux the script (what ssh runs)
// and the reading in Go print reports that classify alike, for this
// process's own pid (a test binary: running or in a futex, not reading).
func TestScriptMatchesProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	pid := strconv.Itoa(os.Getpid())
	stdin, _ := os.Readlink("/proc/self/fd/0")
	goReport := ReadProc(pid)
	out, err := exec.Command("sh", "-c", oneScript, "sh", pid, stdin).Output()
	if err != nil {
		t.Fatal(err)
	}
	g, s := parse(goReport), parse(string(out))
	if !g.linux || !s.linux || g.tpgid != s.tpgid || g.stdin != s.stdin {
		t.Fatalf("reports differ:\ngo:\n%s\nscript:\n%s", goReport, out)
	}
	if strings.Count(goReport, "\nt ") == 0 && g.tpgid > 0 && dirExists("/proc/"+strconv.Itoa(g.tpgid)) {
		t.Errorf("no thread in the report of a live group:\n%s", goReport)
	}
}

// TestReadProcGone: a pane whose process is gone is not known,
// and costs no shell.
func TestReadProcGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if got := ReadProc("2147483646"); got != "" {
		t.Fatalf("report of a pid no process has: %q, want none", got)
	}
}
