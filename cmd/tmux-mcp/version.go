package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3") by a
// packager that builds outside a checkout; when empty, the version Go
// stamped into the binary is used.
var version string

// build is what the binary says about where it came from.
type build struct {
	version  string // module version: a tag, a pseudo-version, or "" (none stamped)
	revision string // the commit it was built from, "" if unknown
	time     string // that commit's time (RFC 3339), "" if unknown
	modified bool   // the work tree had uncommitted changes
	goVer    string // the Go toolchain
}

// readBuild reads the build information Go stamps into a binary: the main
// module's version (go install m@v records it; go build in a checkout
// derives it from the tags and the commit since Go 1.24) and the
// vcs.revision, vcs.time and vcs.modified settings of go build in a
// checkout.
func readBuild() build {
	b := build{version: version, goVer: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if b.version == "" && bi.Main.Version != "(devel)" {
		b.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// short is the version clients are told: the module version, else "dev"
// with the commit it was built from.
func (b build) short() string {
	v := b.version
	if v == "" {
		v = "dev"
		if b.revision != "" {
			v += "-" + b.revision[:min(12, len(b.revision))]
		}
		if b.modified {
			v += "-dirty"
		}
	}
	return v
}

// line is what --version prints: the version, then the commit, its time,
// whether the tree was modified, and the toolchain, as far as they are known.
func (b build) line() string {
	parts := []string{"tmux-mcp", b.short()}
	var detail []string
	if b.revision != "" {
		detail = append(detail, "commit "+b.revision)
	}
	if b.time != "" {
		detail = append(detail, b.time)
	}
	if b.modified {
		detail = append(detail, "modified")
	}
	detail = append(detail, fmt.Sprintf("%s %s/%s", b.goVer, runtime.GOOS, runtime.GOARCH))
	return strings.Join(parts, " ") + " (" + strings.Join(detail, ", ") + ")"
}

// versionString is the version clients are told.
func versionString() string { return readBuild().short() }

// versionLine is what --version prints.
func versionLine() string { return readBuild().line() }
