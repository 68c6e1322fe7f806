package mcp

// Listings are paged by offset: list_sessions, list_windows and list_panes
// answer limit rows (100 unless told) from offset on, in tmux's order
// (session, window index, pane index), with the number of rows in all
// pages and the offset of the next page when there is one. The rows are
// read fresh on every call, so a page is current, and pages read while
// things come and go may overlap or miss a row: ids, not offsets, name
// things.

// paged returns the page of rows that p selects, each converted by conv,
// as a List.
func paged[T, R any](rows []T, p Paging, conv func(T) R) List[R] {
	total := len(rows)
	start := min(p.Offset, total)
	end := total
	if p.Limit > 0 && p.Limit < end-start {
		end = start + p.Limit
	}
	out := List[R]{Result: make([]R, 0, end-start), Total: total}
	for _, r := range rows[start:end] {
		out.Result = append(out.Result, conv(r))
	}
	if end < total {
		out.NextOffset = &end
	}
	return out
}

// same is the conversion that keeps a row as it is.
func same[T any](r T) T { return r }
