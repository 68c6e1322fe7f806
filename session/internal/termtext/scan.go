package termtext

// A Scanner splits a terminal's output into text and escape sequences, one
// byte at a time, keeping its state between writes, so that a sequence
// split across %output lines is read whole. It knows the grammar of the
// sequences (ESC and a final byte, CSI with its parameters, the strings of
// OSC, DCS, APC, PM and SOS up to BEL or ST), not what any of them means:
// [Lines] and a reader that follows only where the cursor goes both stand
// on it. The zero value is ready to use.
type Scanner struct {
	state  escState
	params []byte // the parameters of the CSI sequence being read
}

// What a byte fed to a [Scanner] completed.
type Token int

const (
	// InSequence: the byte is part of a sequence not finished yet, or of
	// a string sequence, whose content means nothing to a reader.
	InSequence Token = iota
	// Text: the byte is text or a control character (LF, CR, BS, ...).
	Text
	// Escape: the byte ends a two-byte sequence, ESC and it (ESC M, ESC 7).
	Escape
	// CSI: the byte is the final byte of a control sequence; Params holds
	// its parameters.
	CSI
)

type escState int

const (
	stText      escState = iota
	stEsc                // after ESC
	stCSI                // after ESC [
	stString             // inside OSC, DCS, APC, PM or SOS, until BEL or ST
	stStringEsc          // ESC inside a string: ST is ESC \
)

// Scan reads one byte and says what it completed.
func (s *Scanner) Scan(c byte) Token {
	switch s.state {
	case stEsc:
		s.state = stText
		switch c {
		case '[':
			s.state, s.params = stCSI, s.params[:0]
			return InSequence
		case ']', 'P', '_', '^', 'X':
			s.state = stString
			return InSequence
		}
		return Escape
	case stCSI:
		if c >= 0x40 && c <= 0x7e {
			s.state = stText
			return CSI
		}
		s.params = append(s.params, c)
		return InSequence
	case stString:
		switch c {
		case 0x07:
			s.state = stText
		case 0x1b:
			s.state = stStringEsc
		}
		return InSequence
	case stStringEsc:
		s.state = stString
		if c == '\\' {
			s.state = stText
		}
		return InSequence
	}
	if c == 0x1b {
		s.state = stEsc
		return InSequence
	}
	return Text
}

// Params returns the parameters of the last CSI sequence, the bytes
// between ESC [ and its final byte. They are valid until the next Scan.
func (s *Scanner) Params() []byte { return s.params }
