package rows

import "strings"

// Field is one tmux format variable of a row and how to store its value in
// a T.
type Field[T any] struct {
	Name string           // the variable, as in #{session_id}
	Set  func(*T, string) // stores the value as parsed from one line
}

// Format reads rows of one kind. Fields tmux makes up itself (ids,
// numbers, flags, tty paths) never hold a space, so they come first,
// joined by one; each free-text field follows behind the separator, so no
// space in a name or title can shift a field.
//
// Short formats matter: tmux lexes a command a byte at a time, and a
// list-panes row costs it about as much per byte of format as per field
// looked up.
type Format[T any] struct {
	fixed  []Field[T] // in format order
	text   []Field[T] // in format order, after the fixed ones
	sep    string
	format string
}

// New returns the format of fields. text returns the format that prints
// variable name when its value is free text, chosen by a user or a program
// (a name, a title, a path), or "" when tmux makes the value up, which is
// then printed as #{name}. sep goes before each free-text field, and must
// be a string no value holds: a value that holds it makes its row refused.
//
// New panics if every field is free text: a row must start with a field
// tmux makes up.
func New[T any](sep string, fields []Field[T], text func(name string) string) Format[T] {
	f := Format[T]{sep: sep}
	var texts []string
	for _, fl := range fields {
		if t := text(fl.Name); t != "" {
			f.text = append(f.text, fl)
			texts = append(texts, t)
		} else {
			f.fixed = append(f.fixed, fl)
		}
	}
	if len(f.fixed) == 0 {
		panic("rows: a row format needs a field tmux makes up to lead it")
	}
	var b strings.Builder
	for i, fl := range f.fixed {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("#{" + fl.Name + "}")
	}
	for _, t := range texts {
		b.WriteString(sep + t)
	}
	f.format = b.String()
	return f
}

// String returns the format, for a command's -F.
func (f Format[T]) String() string { return f.format }

// Parse reads one row per line. decode turns a free-text field, as tmux
// printed it, back into its value; it is not applied to the other fields,
// and nil leaves free text as printed. A line with the wrong number of
// fields is skipped, and reported through ok.
func (f Format[T]) Parse(decode func(string) string, lines []string) (rows []T, ok bool) {
	ok = true
	for _, line := range lines {
		texts := strings.Split(line, f.sep)
		fixed := strings.Split(texts[0], " ")
		if len(texts) != 1+len(f.text) || len(fixed) != len(f.fixed) {
			ok = false
			continue
		}
		var r T
		for i, fl := range f.fixed {
			fl.Set(&r, fixed[i])
		}
		for i, fl := range f.text {
			v := texts[1+i]
			if decode != nil {
				v = decode(v)
			}
			fl.Set(&r, v)
		}
		rows = append(rows, r)
	}
	return rows, ok
}
