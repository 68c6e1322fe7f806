package agentstate

import "strings"

// Answer returns what the agent CLI named agent answered on screen to
// the prompt whose last line is typed ("" if unknown): the rows after
// the last row that shows it (the whole screen when none does), without
// the CLI's frame and busy rows; for an entry with an Answer pattern,
// only its answer blocks (tool calls included), their marker left out.
// At most maxLines of the newest rows are kept.
func Answer(agent string, rows []string, typed string, maxLines int) []string {
	var a *compiled
	for i := range agents {
		if agents[i].Name == agent {
			a = &agents[i]
		}
	}
	if a == nil {
		return nil
	}
	start := 0
	if typed = strings.TrimSpace(typed); typed != "" {
		for i := len(rows) - 1; i >= 0; i-- {
			if strings.Contains(rows[i], typed) {
				start = i + 1
				break
			}
		}
	}
	var out []string
	in := a.answer == nil // inside an answer block
	indent := 0
	for _, r := range rows[start:] {
		if anyRow([]string{r}, a.chrome) || anyRow([]string{r}, a.busy) {
			in = a.answer == nil
			continue
		}
		if a.answer != nil {
			if loc := a.answer.FindStringIndex(r); loc != nil {
				in, indent = true, len([]rune(r[:loc[1]]))
				out = append(out, r[loc[1]:])
				continue
			}
			t := strings.TrimSpace(r)
			lead := len([]rune(r)) - len([]rune(strings.TrimLeft(r, " ")))
			switch {
			case !in:
				continue
			case t == "":
				out = append(out, "")
				continue
			case lead < indent:
				in = false
				continue
			}
			out = append(out, string([]rune(r)[indent:]))
			continue
		}
		out = append(out, strings.TrimRight(r, " "))
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	if maxLines > 0 && len(out) > maxLines {
		out = out[len(out)-maxLines:]
	}
	return out
}
