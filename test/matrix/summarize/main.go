// Command summarize reads `go test -json` output on stdin and prints one
// line of counts ("LABEL: N passed, N failed, N skipped", subtests
// included), then the output of every test that failed and of every
// package that failed to build or run. It exits 1 when anything failed.
//
//	go test -json ./... | go run ./test/matrix/summarize tmux-3.4
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// event is one line of test2json output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	label := "tests"
	if len(os.Args) > 1 {
		label = os.Args[1]
	}
	output := map[string]*strings.Builder{} // by package and test
	var failed []string                     // keys of output, in the order they failed
	counts := map[string]int{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	for in.Scan() {
		var e event
		if err := json.Unmarshal(in.Bytes(), &e); err != nil {
			fmt.Println(in.Text()) // a build error, say: not test2json
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "build-output":
			fmt.Print(e.Output)
		case "output":
			b := output[key]
			if b == nil {
				b = &strings.Builder{}
				output[key] = b
			}
			b.WriteString(e.Output)
		case "pass", "skip":
			if e.Test != "" {
				counts[e.Action]++
			}
			delete(output, key)
		case "fail":
			if e.Test != "" {
				counts["fail"]++
			}
			failed = append(failed, key)
		}
	}
	fmt.Printf("%s: %d passed, %d failed, %d skipped\n", label, counts["pass"], counts["fail"], counts["skip"])
	for _, key := range failed {
		if b := output[key]; b != nil {
			fmt.Printf("--- %s\n%s", key, b.String())
		}
	}
	if len(failed) > 0 {
		os.Exit(1)
	}
}
