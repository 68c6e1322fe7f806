package agentstate

import (
	"bytes"
	"encoding/json"
	"strings"
)

// claudeEntry is the part of a line of Claude Code's transcript (JSONL
// under its config directory's projects/) that an answer needs.
type claudeEntry struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsMeta  bool   `json:"isMeta"`
	Message struct {
		Role       string          `json:"role"`
		StopReason string          `json:"stop_reason"`
		Content    json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
}

// A Recorded is the latest answer in an agent CLI's record.
type Recorded struct {
	Lines []string // the answer's text, tool calls named
	Text  bool     // Lines hold text, not only tool calls
	// Ended: the record holds the end of the turn (an assistant message
	// that stopped for good, or the turn's duration written after it), or
	// no prompt at all. The CLI writes its record a moment after it draws
	// its screen: a record that has not ended may still be catching up.
	Ended bool
}

// ClaudeAnswer reads the tail of a Claude Code transcript and returns
// the assistant's messages after the last prompt a person (or this
// process) typed: its latest answer. A first line cut by the tail is
// skipped.
func ClaudeAnswer(jsonl []byte) Recorded {
	r := Recorded{Ended: true} // no prompt: nothing to wait for
	for line := range bytes.SplitSeq(jsonl, []byte("\n")) {
		var e claudeEntry
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || e.IsMeta {
			continue
		}
		blocks, text := contentOf(e.Message.Content)
		switch {
		case e.Type == "user" && e.Message.Role == "user":
			if text != "" || hasText(blocks) {
				r = Recorded{} // a new prompt: the answer starts again
			} else {
				r.Ended = false // a tool's result: the model goes on
			}
		case e.Type == "assistant":
			for _, b := range blocks {
				switch b.Type {
				case "text":
					if t := strings.TrimSpace(b.Text); t != "" {
						r.Lines = append(r.Lines, strings.Split(t, "\n")...)
						r.Text = true
					}
				case "tool_use":
					r.Lines = append(r.Lines, "["+b.Name+"]")
				}
			}
			if text != "" {
				r.Lines = append(r.Lines, strings.Split(strings.TrimSpace(text), "\n")...)
				r.Text = true
			}
			// A message streamed in parts has no stop reason until its
			// last; one that stops for a tool waits for the tool's result.
			r.Ended = e.Message.StopReason != "" && e.Message.StopReason != "tool_use"
		case e.Type == "system" && e.Subtype == "turn_duration":
			r.Ended = true
		}
	}
	return r
}

// contentOf reads a message's content: a string or a list of blocks.
func contentOf(raw json.RawMessage) ([]claudeBlock, string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil, s
	}
	var bs []claudeBlock
	_ = json.Unmarshal(raw, &bs)
	return bs, ""
}

func hasText(bs []claudeBlock) bool {
	for _, b := range bs {
		if b.Type == "text" {
			return true
		}
	}
	return false
}
