package foreground

import (
	"os"
	"runtime"
	"strings"
)

// ProcReadable reports whether this machine has the /proc that
// [ReadProc] reads: Linux's.
func ProcReadable() bool {
	return runtime.GOOS == "linux" && dirExists("/proc/self")
}

// ReadProc returns the report of the pane whose process is pid, read
// from /proc of this machine in this process: what the script of [Args]
// prints there. It is "" when /proc does not have it (not Linux, or the
// process is gone).
func ReadProc(pid string) string {
	stat, ok := procStat("/proc/" + pid + "/stat")
	if !ok || len(stat) < 6 {
		return ""
	}
	tp := stat[5]
	stdin, _ := os.Readlink("/proc/" + pid + "/fd/0")
	var b strings.Builder
	b.WriteString("linux " + tp + " " + stdin + "\n")
	if w := readTrim("/proc/" + tp + "/wchan"); dirExists("/proc/"+tp) && w != "do_wait" && w != "kernel_wait4" {
		procThreads(&b, tp)
		return b.String()
	}
	// The leader is gone (ls | less) or waits for a child (a script that
	// runs the program): every process of the group.
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return b.String()
	}
	for _, e := range ents {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		if st, ok := procStat("/proc/" + e.Name() + "/stat"); ok && len(st) > 2 && st[2] == tp {
			procThreads(&b, e.Name())
		}
	}
	return b.String()
}

// procThreads prints the "t" lines of each thread of process pid, and
// its "f" lines when a thread waits where a terminal read can.
func procThreads(b *strings.Builder, pid string) {
	tasks, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		return
	}
	fds := false
	for _, t := range tasks {
		dir := "/proc/" + pid + "/task/" + t.Name()
		st, ok := procStat(dir + "/stat")
		if !ok || len(st) < 3 {
			continue
		}
		w := readTrim(dir + "/wchan")
		if w == "" {
			w = "?"
		}
		sc := readTrim(dir + "/syscall")
		if sc == "" {
			sc = "-"
		}
		b.WriteString("t " + pid + " " + t.Name() + " " + st[0] + " " + st[2] + " " + w + " " + sc + "\n")
		switch {
		case w == "wait_woken", w == "n_tty_read", strings.HasPrefix(w, "poll_schedule_timeout"), w == "do_select", w == "core_sys_select":
			fds = true
		}
	}
	if !fds {
		return
	}
	ents, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if target, err := os.Readlink("/proc/" + pid + "/fd/" + e.Name()); err == nil {
			b.WriteString("f " + pid + " " + e.Name() + " -> " + target + "\n")
		}
	}
}

// procStat returns the fields of a /proc stat file after the command
// name: state first.
func procStat(path string) ([]string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	i := strings.LastIndex(string(data), ") ")
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(data[i+2:])), true
}

// readTrim returns a small file's text without its line end; "" if it
// cannot be read.
func readTrim(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// dirExists reports whether p is a directory.
func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
