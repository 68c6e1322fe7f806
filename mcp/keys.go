package mcp

import (
	"encoding/json"
	"errors"
)

// KeyList is send_keys' keys: a string, as in libtmux-mcp (one tmux key
// name such as C-c, or else text typed as it is), or a list of them, each
// one key name or one text, pressed in order: ["Escape", ":wq"].
type KeyList struct {
	Keys   []string
	IsList bool // given as a list
}

// UnmarshalJSON accepts a string or a list of strings.
func (k *KeyList) UnmarshalJSON(b []byte) error {
	s, isString, err := jsonString(b)
	if err != nil {
		return err
	}
	if isString {
		*k = KeyList{Keys: []string{s}}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil || l == nil {
		return errors.New("want a string, or a list of key names and texts")
	}
	*k = KeyList{Keys: l, IsList: true}
	return nil
}

// MarshalJSON writes k as it was given.
func (k KeyList) MarshalJSON() ([]byte, error) {
	if !k.IsList && len(k.Keys) == 1 {
		return json.Marshal(k.Keys[0])
	}
	return json.Marshal(k.Keys)
}
