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
	IsMeta  bool   `json:"isMeta"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
	Name string `json:"name"`
}

// ClaudeAnswer reads the tail of a Claude Code transcript and returns
// the text of the assistant's messages after the last prompt a person
// (or this process) typed, tool calls named, and whether there was any:
// its latest answer. A first line cut by the tail is skipped.
func ClaudeAnswer(jsonl []byte) ([]string, bool) {
	var answer []string
	found := false
	for line := range bytes.SplitSeq(jsonl, []byte("\n")) {
		var e claudeEntry
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || e.IsMeta {
			continue
		}
		blocks, text := contentOf(e.Message.Content)
		switch {
		case e.Type == "user" && e.Message.Role == "user":
			if text != "" || hasText(blocks) {
				answer, found = nil, false // a new prompt: the answer starts again
			}
		case e.Type == "assistant":
			for _, b := range blocks {
				switch b.Type {
				case "text":
					if t := strings.TrimSpace(b.Text); t != "" {
						answer = append(answer, strings.Split(t, "\n")...)
						found = true
					}
				case "tool_use":
					answer = append(answer, "["+b.Name+"]")
				}
			}
			if text != "" {
				answer = append(answer, strings.Split(strings.TrimSpace(text), "\n")...)
				found = true
			}
		}
	}
	return answer, found
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
