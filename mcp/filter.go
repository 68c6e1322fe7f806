package mcp

import (
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Filters: libtmux's QueryList lookups, field__op = value, over the fields
// a tool returns. Every value is compared as the text tmux would print: a
// number as digits, a flag as 1 or 0. A key without a known operator is an
// exact match; an unknown field or operator is invalid_arguments, never a
// silently empty list.

// filterOps are the lookups, as in libtmux.
var filterOps = []string{"eq", "exact", "iexact", "contains", "icontains", "startswith", "istartswith",
	"endswith", "iendswith", "in", "nin", "regex", "iregex"}

// filterValue is one field of one row.
type filterValue struct {
	text    string
	present bool // absent values match nothing
	flag    bool // a boolean field: only exact and eq apply
}

// filterFields maps field names to the values of one row.
type filterFields map[string]filterValue

// resultFields returns the JSON fields of v, a result struct (embedded
// structs included), as filter values.
func resultFields(v any) filterFields {
	out := filterFields{}
	var walk func(rv reflect.Value)
	walk = func(rv reflect.Value) {
		rt := rv.Type()
		for i := 0; i < rt.NumField(); i++ {
			f, fv := rt.Field(i), rv.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(fv)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fl := filterValue{present: true}
			if fv.Kind() == reflect.Pointer {
				fl.flag = f.Type.Elem().Kind() == reflect.Bool
				if fv.IsNil() {
					out[name] = filterValue{flag: fl.flag}
					continue
				}
				fv = fv.Elem()
			}
			switch fv.Kind() {
			case reflect.Bool:
				fl.flag, fl.text = true, "0"
				if fv.Bool() {
					fl.text = "1"
				}
			case reflect.Int, reflect.Int64:
				fl.text = strconv.FormatInt(fv.Int(), 10)
			case reflect.String:
				fl.text = fv.String()
			default:
				continue
			}
			out[name] = fl
		}
	}
	walk(reflect.ValueOf(v))
	return out
}

// sessionFilterFields are a SessionInfo's fields, plus tmux's name for
// the window count.
func sessionFilterFields(s SessionInfo) filterFields {
	f := resultFields(s)
	f["session_windows"] = f["window_count"]
	return f
}

// filterList keeps the rows matching every filter. fields gives a row's
// values; called on the zero row, it names the fields there are.
func filterList[T any](rows []T, filters StringMap, fields func(T) filterFields) ([]T, error) {
	if len(filters) == 0 {
		return rows, nil
	}
	var zero T
	lookups, err := parseFilters(filters, fields(zero))
	if err != nil {
		return nil, err
	}
	var out []T
	for _, row := range rows {
		f := fields(row)
		if !slices.ContainsFunc(lookups, func(l lookup) bool { return !l.match(f[l.field]) }) {
			out = append(out, row)
		}
	}
	return out, nil
}

// lookup is one filter: field op value.
type lookup struct {
	field, op, value string
	list             []string // for in/nin given a JSON list
	re               *regexp.Regexp
}

// parseFilters reads the filters, in key order, against the known fields.
func parseFilters(filters StringMap, known filterFields) ([]lookup, error) {
	keys := slices.Sorted(maps.Keys(filters))
	lookups := make([]lookup, 0, len(keys))
	for _, key := range keys {
		l, err := parseLookup(key, filters[key], known)
		if err != nil {
			return nil, err
		}
		lookups = append(lookups, l)
	}
	return lookups, nil
}

// parseLookup reads one filter, key = value.
func parseLookup(key, value string, known filterFields) (lookup, error) {
	l := lookup{field: key, op: "exact", value: value}
	notOp := ""
	if lhs, op, ok := cutLast(key, "__"); ok {
		if slices.Contains(filterOps, op) {
			l.field, l.op = lhs, op
		} else {
			notOp = op
		}
	}
	kf, ok := known[l.field]
	if !ok {
		names := strings.Join(slices.Sorted(maps.Keys(known)), ", ")
		if notOp != "" {
			return l, invalidArguments("filter %q: %q is not an operator (%s), and %q is not a field; filterable fields: %s",
				key, notOp, strings.Join(filterOps, ", "), l.field, names)
		}
		return l, invalidArguments("unknown filter field %q in %q; filterable fields: %s", l.field, key, names)
	}
	if kf.flag {
		if l.op != "exact" && l.op != "eq" {
			return l, invalidArguments("filter %q: field %s is a flag; use exact or eq", key, l.field)
		}
		switch strings.ToLower(strings.TrimSpace(l.value)) {
		case "1", "true", "yes":
			l.value = "1"
		case "0", "false", "no":
			l.value = "0"
		default:
			return l, invalidArguments("filter %q takes a boolean (true, false, 1, 0, yes, no), got %q", key, l.value)
		}
	}
	switch l.op {
	case "regex", "iregex":
		expr := l.value
		if l.op == "iregex" {
			expr = "(?i)" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return l, invalidArguments("filter %q: %v", key, err)
		}
		l.re = re
	case "in", "nin":
		// libtmux tests a string right-hand side as a substring; a
		// JSON list of strings is a set of values.
		var list []string
		if strings.HasPrefix(strings.TrimSpace(l.value), "[") && json.Unmarshal([]byte(l.value), &list) == nil {
			l.list = list
		}
	}
	return l, nil
}

// match reports whether v passes the lookup; an absent value passes none.
func (l lookup) match(v filterValue) bool {
	if !v.present {
		return false
	}
	d, r := v.text, l.value
	switch l.op {
	case "exact", "eq":
		return d == r
	case "iexact":
		return strings.EqualFold(d, r)
	case "contains":
		return strings.Contains(d, r)
	case "icontains":
		return strings.Contains(strings.ToLower(d), strings.ToLower(r))
	case "startswith":
		return strings.HasPrefix(d, r)
	case "istartswith":
		return strings.HasPrefix(strings.ToLower(d), strings.ToLower(r))
	case "endswith":
		return strings.HasSuffix(d, r)
	case "iendswith":
		return strings.HasSuffix(strings.ToLower(d), strings.ToLower(r))
	case "in", "nin":
		in := strings.Contains(d, r)
		if l.list != nil {
			in = slices.Contains(l.list, d)
		}
		return in == (l.op == "in")
	case "regex", "iregex":
		return l.re.MatchString(d)
	}
	return false
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
