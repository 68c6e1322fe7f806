package stdio

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// TestMain checks, as every package's tests do, that the tmux servers the
// tests start are gone afterwards.
func TestMain(m *testing.M) {
	fixtures.UseTestShell()
	os.Exit(fixtures.RunTests(m, nil))
}

func testSocketDir() string { return session.SocketDir(os.Getenv("TMUX_TMPDIR"), os.Getuid()) }

const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// response is a JSON-RPC response as it appears on the wire.
type response struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseResponse(t testing.TB, line string) response {
	t.Helper()
	var r response
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("stdout line %q: %v", line, err)
	}
	return r
}

func textOf(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}
