package capture

import "fmt"

// tokKind is the kind of a PTX token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // names, opcodes with modifiers (ld.global.f32), registers (%r1, %tid.x), directives (.reg)
	tNumber         // 12, 0x1F, 0f3F800000, 0d3FF0000000000000, 1.5, 7U
	tString         // "..." (text without quotes)
	tPunct          // one of , ; : { } [ ] ( ) + - ! @ | < > =
)

type token struct {
	kind tokKind
	text string
	line int32
	col  int32
	off  int32 // byte offset in the source
}

func (t token) is(p string) bool { return t.kind == tPunct && t.text == p }

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// lex splits PTX text into tokens. Comments are dropped; everything else is kept, so
// that an unknown construct reaches the parser and becomes an error with a position.
func lex(file string, src []byte) ([]token, error) {
	toks := make([]token, 0, len(src)/4)
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for k := 0; k < n; k++ {
			if src[i] == '\n' {
				line++
				col = 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			adv(1)
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			l0, c0 := line, col
			adv(2)
			for {
				if i+1 >= len(src) {
					return nil, &PTXError{File: file, Line: l0, Col: c0, Msg: "unterminated /* comment"}
				}
				if src[i] == '*' && src[i+1] == '/' {
					adv(2)
					break
				}
				adv(1)
			}
			continue
		}
		t := token{line: int32(line), col: int32(col), off: int32(i)}
		start := i
		switch {
		case isIdentStart(c) || (c == '.' && i+1 < len(src) && isIdentStart(src[i+1])):
			for i < len(src) {
				if isIdentChar(src[i]) || src[i] == '.' {
					adv(1)
				} else if src[i] == ':' && i+2 < len(src) && src[i+1] == ':' && isIdentChar(src[i+2]) {
					adv(2) // a qualified modifier: .L1::evict_last, .shared::cta
				} else {
					break
				}
			}
			t.kind, t.text = tIdent, string(src[start:i])
		case c >= '0' && c <= '9':
			for i < len(src) && (isIdentChar(src[i]) || src[i] == '.') {
				adv(1)
			}
			t.kind, t.text = tNumber, string(src[start:i])
		case c == '"':
			adv(1)
			for i < len(src) && src[i] != '"' && src[i] != '\n' {
				adv(1)
			}
			if i >= len(src) || src[i] != '"' {
				return nil, &PTXError{File: file, Line: int(t.line), Col: int(t.col), Msg: "unterminated string"}
			}
			t.kind, t.text = tString, string(src[start+1:i])
			adv(1)
		default:
			switch c {
			case ',', ';', ':', '{', '}', '[', ']', '(', ')', '+', '-', '!', '@', '|', '<', '>', '=':
				adv(1)
				t.kind, t.text = tPunct, string(src[start:i])
			default:
				return nil, &PTXError{File: file, Line: line, Col: col, Msg: fmt.Sprintf("unexpected character %q", c)}
			}
		}
		toks = append(toks, t)
	}
	toks = append(toks, token{kind: tEOF, line: int32(line), col: int32(col), off: int32(len(src))})
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '%'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}
