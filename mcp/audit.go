package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"time"
	"unicode/utf8"
)

// secretArgs are the arguments whose values the audit log reduces to their
// length and a hash prefix, at any depth, as libtmux-mcp does.
var secretArgs = map[string]bool{
	"keys": true, "text": true, "command": true, "value": true,
	"content": true, "shell": true, "environment": true,
}

// maxAuditString is where other strings are cut in the audit log.
const maxAuditString = 200

// audit writes one line for a finished call.
func (s *server) audit(tool string, args map[string]any, te *ToolError, d time.Duration) {
	attrs := []any{
		slog.String("tool", tool),
		slog.String("outcome", "ok"),
		slog.Int64("duration_ms", d.Milliseconds()),
	}
	if s.owner != "" {
		// The client's label (a token's name over HTTP), never the token.
		attrs = append(attrs, slog.String("client", s.owner))
	}
	if te != nil {
		attrs[1] = slog.String("outcome", "error")
		attrs = append(attrs, slog.String("code", te.Code), slog.String("effects", te.Effects))
	}
	if args != nil {
		b, _ := json.Marshal(redact(args, false))
		attrs = append(attrs, slog.String("args", string(b)))
	}
	s.logger.Info("tool call", attrs...)
}

// redact returns v with secret values replaced by {len, sha256} and long
// strings cut. An environment object keeps its keys.
func redact(v any, secret bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, m := range v {
			switch {
			case secret:
				out[k] = redact(m, true)
			case k == "environment":
				if env, ok := m.(map[string]any); ok {
					out[k] = redact(env, true)
					continue
				}
				out[k] = digest(m)
			case secretArgs[k]:
				out[k] = digest(m)
			default:
				out[k] = redact(m, false)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redact(e, secret)
		}
		return out
	case string:
		if secret {
			return digest(v)
		}
		if len(v) > maxAuditString {
			cut := maxAuditString
			for cut > 0 && !utf8.RuneStart(v[cut]) {
				cut--
			}
			return v[:cut] + "…"
		}
	}
	return v
}

func digest(v any) map[string]any {
	b, _ := json.Marshal(v)
	if s, ok := v.(string); ok {
		b = []byte(s)
	}
	sum := sha256.Sum256(b)
	return map[string]any{"len": len(b), "sha256": hex.EncodeToString(sum[:4])}
}
