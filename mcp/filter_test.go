package mcp

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// filterRow is a result row for the filter tests: a string, a number, a
// flag and a field that may be absent.
type filterRow struct {
	Name   string  `json:"name"`
	Count  int     `json:"count"`
	Active bool    `json:"active"`
	Title  *string `json:"title,omitempty"`
}

func filterRowFields(r filterRow) filterFields { return resultFields(r) }

// TestFilterList runs libtmux's QueryList lookups over rows, with no tmux:
// each operator, flags, absent values, several filters at once, and the
// invalid_arguments answers for what cannot be a filter.
func TestFilterList(t *testing.T) {
	title := "Build Log"
	rows := []filterRow{
		{Name: "dev", Count: 3, Active: true, Title: &title},
		{Name: "Dev-2", Count: 12},
		{Name: "logs", Count: 1, Active: true},
	}
	names := func(rs []filterRow) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	tests := []struct {
		name    string
		filters StringMap
		want    []string // names kept
		err     string   // a substring of the error message; "" for none
	}{
		{name: "no filters", filters: nil, want: []string{"dev", "Dev-2", "logs"}},
		{name: "bare key is exact", filters: StringMap{"name": "dev"}, want: []string{"dev"}},
		{name: "exact", filters: StringMap{"name__exact": "Dev-2"}, want: []string{"Dev-2"}},
		{name: "eq", filters: StringMap{"name__eq": "logs"}, want: []string{"logs"}},
		{name: "iexact", filters: StringMap{"name__iexact": "DEV"}, want: []string{"dev"}},
		{name: "contains", filters: StringMap{"name__contains": "ev"}, want: []string{"dev", "Dev-2"}},
		{name: "contains is case-sensitive", filters: StringMap{"name__contains": "De"}, want: []string{"Dev-2"}},
		{name: "icontains", filters: StringMap{"name__icontains": "DE"}, want: []string{"dev", "Dev-2"}},
		{name: "startswith", filters: StringMap{"name__startswith": "d"}, want: []string{"dev"}},
		{name: "istartswith", filters: StringMap{"name__istartswith": "d"}, want: []string{"dev", "Dev-2"}},
		{name: "endswith", filters: StringMap{"name__endswith": "gs"}, want: []string{"logs"}},
		{name: "iendswith", filters: StringMap{"name__iendswith": "EV"}, want: []string{"dev"}},
		{name: "in a string is a substring", filters: StringMap{"name__in": "xdevx"}, want: nil},
		{name: "in a string, substring of the value", filters: StringMap{"name__in": "og"}, want: []string{"logs"}},
		{name: "in a JSON list is a set", filters: StringMap{"name__in": `["dev", "logs"]`}, want: []string{"dev", "logs"}},
		{name: "nin a JSON list", filters: StringMap{"name__nin": `["dev", "logs"]`}, want: []string{"Dev-2"}},
		{name: "regex", filters: StringMap{"name__regex": "^[a-z]+$"}, want: []string{"dev", "logs"}},
		{name: "iregex", filters: StringMap{"name__iregex": "^dev"}, want: []string{"dev", "Dev-2"}},
		{name: "a number as digits", filters: StringMap{"count": "12"}, want: []string{"Dev-2"}},
		{name: "a number's digits", filters: StringMap{"count__startswith": "1"}, want: []string{"Dev-2", "logs"}},
		{name: "flag true", filters: StringMap{"active": "true"}, want: []string{"dev", "logs"}},
		{name: "flag yes", filters: StringMap{"active__eq": " Yes "}, want: []string{"dev", "logs"}},
		{name: "flag 0", filters: StringMap{"active": "0"}, want: []string{"Dev-2"}},
		{name: "absent matches nothing", filters: StringMap{"title__contains": ""}, want: []string{"dev"}},
		{name: "absent fails nin too", filters: StringMap{"title__nin": `["x"]`}, want: []string{"dev"}},
		{name: "every filter must match", filters: StringMap{"name__icontains": "dev", "active": "1"}, want: []string{"dev"}},

		{name: "flag with an operator", filters: StringMap{"active__contains": "1"}, err: `field active is a flag; use exact or eq`},
		{name: "flag with a bad value", filters: StringMap{"active": "maybe"}, err: `takes a boolean`},
		{name: "unknown field", filters: StringMap{"colour": "red"}, err: `unknown filter field "colour" in "colour"; filterable fields: active, count, name, title`},
		{name: "unknown operator", filters: StringMap{"name__like": "d%"}, err: `"like" is not an operator`},
		{name: "bad regex", filters: StringMap{"name__regex": "("}, err: `filter "name__regex":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := filterList(rows, tc.filters, filterRowFields)
			if tc.err != "" {
				var te *ToolError
				if !errors.As(err, &te) || te.Code != CodeInvalidArguments || !strings.Contains(te.Message, tc.err) {
					t.Fatalf("got error %v, want invalid_arguments containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if !slices.Equal(names(got), tc.want) {
				t.Errorf("got %q, want %q", names(got), tc.want)
			}
		})
	}
}
