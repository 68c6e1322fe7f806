package mcp

// Nearest returns the candidate closest to s in edit distance, for a "did
// you mean" in an error, or "" when none is close enough to be a likely
// slip: at most a third of the longer name's length, and at least 1 edit,
// may differ. A candidate that s is a prefix of, or that is a prefix of s
// (send_key, global), counts as one edit away. Ties go to the earlier
// candidate.
func Nearest(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(s, c)
		if s != "" && (len(c) > len(s) && c[:len(s)] == s || len(s) > len(c) && s[:len(c)] == c) {
			d = min(d, 1)
		}
		limit := max(1, max(len(s), len(c))/3)
		if d > limit {
			continue
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
