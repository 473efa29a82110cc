package capture

import (
	"fmt"
	"strings"
)

// The parser turns tokens into a small syntax tree: module-level variables and
// functions, each function a flat list of statements. Names are resolved later, by the
// decoder, which also checks every opcode against the supported set.

type module struct {
	file     string
	src      []byte
	version  string
	target   string
	addrSize int
	vars     []*varDecl
	funcs    []*function
	files    map[int]string // .file index → name
}

// varDecl is a .global/.const/.shared/.local/.param/.reg declaration.
type varDecl struct {
	pos      token
	space    string // ".global", ".const", ".shared", ".local", ".param", ".reg"
	linkage  string // ".visible", ".extern", ".weak", ""
	align    int
	typ      string // ".b8", ".u32", ".pred", ...
	vec      int    // .v2/.v4 declarations, 0 if none
	name     string
	count    int   // %r<count> for registers; -1 for a plain name
	dims     []int // array dimensions; a 0 entry is an unsized [] (extern shared)
	init     []initElem
	hasInit  bool
	ptrSpace string // .ptr.global etc. on kernel params (ignored but accepted)
}

type initElem struct {
	tok token
	neg bool
}

type function struct {
	pos    token
	name   string
	entry  bool
	extern bool // a prototype without a body
	rets   []*varDecl
	params []*varDecl
	body   []stmt
	noBody bool
	endPos token
	// maxntid and reqntid are the extents of the .maxntid and .reqntid directives
	// (__launch_bounds__ gives .maxntid): zero where the function has none.
	maxntid, reqntid [3]uint32
}

type stmtKind uint8

const (
	sInst stmtKind = iota
	sLabel
	sDecl
	sLoc
	sOpen   // '{' opening a nested scope
	sClose  // '}'
	sPragma // .pragma "nounroll" (label): the next instruction heads a loop ptxas must not unroll
)

type stmt struct {
	kind  stmtKind
	pos   token
	label string
	decl  *varDecl
	inst  *instAST
	file  int
	line  int
}

type operandKind uint8

const (
	oName  operandKind = iota // register, special register, symbol, label or function
	oImm                      // integer or float literal
	oAddr                     // [base+off] or [sym+off] or [imm] or [tex, {x, y}]
	oVec                      // {a, b, c, d}
	oSink                     // _
	oParen                    // (a, b) argument list of call
	oPair                     // %p|%q
)

type operand struct {
	kind  operandKind
	pos   token
	name  string // oName; oAddr base ("" for an absolute address)
	neg   bool   // !%p
	imm   token  // oImm literal
	ineg  bool   // -imm
	off   int64  // oAddr offset
	elems []operand
}

type instAST struct {
	pos     token
	guard   string
	gneg    bool
	opcode  string
	ops     []operand
	text    string
	locFile int
	locLine int
}

type parser struct {
	file string
	src  []byte
	toks []token
	p    int
	mod  *module
	loc  struct{ file, line int }
}

func (ps *parser) peek() token { return ps.toks[ps.p] }
func (ps *parser) next() token {
	t := ps.toks[ps.p]
	if t.kind != tEOF {
		ps.p++
	}
	return t
}

func (ps *parser) errAt(t token, format string, args ...any) error {
	return &PTXError{File: ps.file, Line: int(t.line), Col: int(t.col), Msg: fmt.Sprintf(format, args...)}
}

// skipBraces skips a { ... } block, nested blocks included.
func (ps *parser) skipBraces() error {
	open, err := ps.expect("{")
	if err != nil {
		return err
	}
	for depth := 1; depth > 0; {
		t := ps.next()
		switch {
		case t.kind == tEOF:
			return ps.errAt(open, "unclosed {")
		case t.is("{"):
			depth++
		case t.is("}"):
			depth--
		}
	}
	return nil
}

func (ps *parser) expect(p string) (token, error) {
	t := ps.next()
	if !t.is(p) {
		return t, ps.errAt(t, "expected %q, found %s", p, t)
	}
	return t, nil
}

// parsePTX parses a whole PTX module.
func parsePTX(file string, src []byte) (*module, error) {
	toks, err := lex(file, src)
	if err != nil {
		return nil, err
	}
	ps := &parser{file: file, src: src, toks: toks, mod: &module{file: file, src: src, files: map[int]string{}}}
	if err := ps.module(); err != nil {
		return nil, err
	}
	return ps.mod, nil
}

func (ps *parser) module() error {
	for {
		t := ps.peek()
		if t.kind == tEOF {
			return nil
		}
		if t.kind != tIdent || t.text[0] != '.' {
			return ps.errAt(t, "expected a directive at module level, found %s", t)
		}
		switch t.text {
		case ".version":
			ps.next()
			v := ps.next()
			if v.kind != tNumber {
				return ps.errAt(v, "expected a version number after .version")
			}
			ps.mod.version = v.text
		case ".target":
			ps.next()
			v := ps.next()
			if v.kind != tIdent {
				return ps.errAt(v, "expected a target after .target")
			}
			ps.mod.target = v.text
			for ps.peek().is(",") {
				ps.next()
				ps.next()
			}
		case ".address_size":
			ps.next()
			v := ps.next()
			if v.kind != tNumber || (v.text != "64" && v.text != "32") {
				return ps.errAt(v, "expected 32 or 64 after .address_size")
			}
			if v.text != "64" {
				return ps.errAt(v, ".address_size 32 is not supported")
			}
			ps.mod.addrSize = 64
		case ".file":
			ps.next()
			n := ps.next()
			name := ps.next()
			if n.kind != tNumber || name.kind != tString {
				return ps.errAt(n, "expected .file INDEX \"NAME\"")
			}
			idx, err := parseInt(n.text)
			if err != nil {
				return ps.errAt(n, "bad .file index %s", n.text)
			}
			ps.mod.files[int(idx)] = name.text
			for ps.peek().is(",") { // optional timestamp, size
				ps.next()
				ps.next()
			}
		case ".section":
			// DWARF sections (clang -g/-gline-tables-only, nvcc -G) hold debug data
			// that capture does not use; .loc and .file carry the line numbers.
			ps.next()
			name := ps.next()
			if !strings.HasPrefix(name.text, ".debug_") {
				return ps.errAt(name, "unsupported section %s (only .debug_* sections are skipped)", name.text)
			}
			if err := ps.skipBraces(); err != nil {
				return err
			}
		case ".pragma":
			ps.next()
			if err := ps.skipPragma(); err != nil {
				return err
			}
		default:
			if err := ps.topDecl(); err != nil {
				return err
			}
		}
	}
}

func (ps *parser) skipPragma() error {
	for {
		t := ps.next()
		if t.kind == tEOF {
			return ps.errAt(t, "unterminated .pragma")
		}
		if t.is(";") {
			return nil
		}
	}
}

// topDecl parses a variable or function at module level, with its linkage prefix.
func (ps *parser) topDecl() error {
	linkage := ""
	for {
		t := ps.peek()
		if t.kind == tIdent && (t.text == ".visible" || t.text == ".extern" || t.text == ".weak" || t.text == ".common") {
			linkage = t.text
			ps.next()
			continue
		}
		break
	}
	t := ps.peek()
	switch t.text {
	case ".entry", ".func":
		return ps.function(linkage)
	case ".global", ".const", ".shared", ".local":
		d, err := ps.varDecl(true)
		if err != nil {
			return err
		}
		d.linkage = linkage
		ps.mod.vars = append(ps.mod.vars, d)
		_, err = ps.expect(";")
		return err
	}
	return ps.errAt(t, "unsupported directive %s at module level", t)
}

// varDecl parses SPACE [.align N] [.vN] TYPE NAME[<N>|[dims]] [= init].
// The current token is the state space.
func (ps *parser) varDecl(allowInit bool) (*varDecl, error) {
	sp := ps.next()
	d := &varDecl{pos: sp, space: sp.text, count: -1}
	for {
		t := ps.peek()
		if t.kind != tIdent || t.text[0] != '.' {
			break
		}
		ps.next()
		switch {
		case t.text == ".align":
			n := ps.next()
			v, err := parseInt(n.text)
			if n.kind != tNumber || err != nil || v <= 0 || v&(v-1) != 0 {
				return nil, ps.errAt(n, "bad alignment %s", n.text)
			}
			d.align = int(v)
		case t.text == ".v2" || t.text == ".v4":
			d.vec = int(t.text[2] - '0')
		case t.text == ".ptr" || strings.HasPrefix(t.text, ".ptr."):
			d.ptrSpace = t.text
			for ps.peek().kind == tIdent && (ps.peek().text == ".global" || ps.peek().text == ".shared" || ps.peek().text == ".const" || ps.peek().text == ".local") {
				ps.next()
			}
		default:
			// .texref: a texture reference (.global only), bound by the host (Spec.TexRefs).
			if typeSize(t.text) == 0 && t.text != ".pred" && (t.text != ".texref" || d.space != ".global") {
				return nil, ps.errAt(t, "unsupported type or qualifier %s in %s declaration", t.text, d.space)
			}
			d.typ = t.text
		}
	}
	if d.typ == "" {
		return nil, ps.errAt(ps.peek(), "missing type in %s declaration", d.space)
	}
	n := ps.next()
	if n.kind != tIdent {
		return nil, ps.errAt(n, "expected a name in %s declaration, found %s", d.space, n)
	}
	d.name = n.text
	if ps.peek().is("<") {
		ps.next()
		c := ps.next()
		v, err := parseInt(c.text)
		if c.kind != tNumber || err != nil || v < 0 || v > 1<<16 {
			return nil, ps.errAt(c, "bad register count %s", c.text)
		}
		d.count = int(v)
		if _, err := ps.expect(">"); err != nil {
			return nil, err
		}
	}
	for ps.peek().is("[") {
		ps.next()
		if ps.peek().is("]") {
			ps.next()
			d.dims = append(d.dims, 0)
			continue
		}
		c := ps.next()
		v, err := parseInt(c.text)
		if c.kind != tNumber || err != nil || v < 0 || v > 1<<31 {
			return nil, ps.errAt(c, "bad array size %s", c.text)
		}
		d.dims = append(d.dims, int(v))
		if _, err := ps.expect("]"); err != nil {
			return nil, err
		}
	}
	if ps.peek().is("=") {
		eq := ps.next()
		if !allowInit {
			return nil, ps.errAt(eq, "initialiser not allowed here")
		}
		d.hasInit = true
		if err := ps.initList(d, 0); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (ps *parser) initList(d *varDecl, depth int) error {
	if depth > 8 {
		return ps.errAt(ps.peek(), "initialiser nested too deeply")
	}
	if ps.peek().is("{") {
		ps.next()
		if ps.peek().is("}") {
			ps.next()
			return nil
		}
		for {
			if err := ps.initList(d, depth+1); err != nil {
				return err
			}
			t := ps.next()
			if t.is("}") {
				return nil
			}
			if !t.is(",") {
				return ps.errAt(t, "expected ',' or '}' in initialiser, found %s", t)
			}
		}
	}
	neg := false
	if ps.peek().is("-") {
		ps.next()
		neg = true
	}
	t := ps.next()
	if t.kind != tNumber {
		return ps.errAt(t, "unsupported initialiser %s (only numeric constants are supported)", t)
	}
	d.init = append(d.init, initElem{t, neg})
	return nil
}

func (ps *parser) function(linkage string) error {
	kw := ps.next()
	f := &function{pos: kw, entry: kw.text == ".entry", extern: linkage == ".extern"}
	if ps.peek().is("(") { // return parameters of a .func
		if f.entry {
			return ps.errAt(ps.peek(), ".entry has no return parameters")
		}
		rets, err := ps.paramList()
		if err != nil {
			return err
		}
		f.rets = rets
	}
	n := ps.next()
	if n.kind != tIdent {
		return ps.errAt(n, "expected a function name, found %s", n)
	}
	f.name = n.text
	if ps.peek().is("(") {
		params, err := ps.paramList()
		if err != nil {
			return err
		}
		f.params = params
	}
	// Performance directives and .noreturn.
	for ps.peek().kind == tIdent && ps.peek().text[0] == '.' {
		t := ps.next()
		switch t.text {
		case ".maxntid", ".reqntid":
			dims := [3]uint32{1, 1, 1}
			for i := 0; ; i++ {
				n := ps.next()
				v, err := parseInt(n.text)
				if n.kind != tNumber || err != nil || v < 1 || v > 1<<31 || i > 2 {
					return ps.errAt(n, "%s takes one to three extents of at least 1 (found %s)", t.text, n.text)
				}
				dims[i] = uint32(v)
				if !ps.peek().is(",") {
					break
				}
				ps.next()
			}
			if t.text == ".maxntid" {
				f.maxntid = dims
			} else {
				f.reqntid = dims
			}
		case ".minnctapersm", ".maxnreg", ".maxnctapersm", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank":
			for ps.peek().kind == tNumber {
				ps.next()
				if ps.peek().is(",") {
					ps.next()
				}
			}
		case ".noreturn":
		case ".pragma":
			if err := ps.skipPragma(); err != nil {
				return err
			}
		default:
			return ps.errAt(t, "unsupported function directive %s", t.text)
		}
	}
	if ps.peek().is(";") {
		ps.next()
		f.noBody = true
		ps.mod.funcs = append(ps.mod.funcs, f)
		return nil
	}
	if _, err := ps.expect("{"); err != nil {
		return err
	}
	depth := 1
	for {
		t := ps.peek()
		switch {
		case t.kind == tEOF:
			return ps.errAt(t, "missing '}' at end of function %s", f.name)
		case t.is("}"):
			ps.next()
			depth--
			if depth == 0 {
				f.endPos = t
				if fallsOffTheEnd(f.body) {
					f.body = append(f.body, stmt{kind: sInst, pos: t, inst: &instAST{pos: t, opcode: "ret",
						text: "ret", locFile: ps.loc.file, locLine: ps.loc.line}})
				}
				ps.mod.funcs = append(ps.mod.funcs, f)
				return nil
			}
			f.body = append(f.body, stmt{kind: sClose, pos: t})
		case t.is("{"):
			ps.next()
			depth++
			if depth > 16 {
				return ps.errAt(t, "blocks nested too deeply")
			}
			f.body = append(f.body, stmt{kind: sOpen, pos: t})
		case t.kind == tIdent && t.text[0] == '.':
			if err := ps.bodyDirective(f); err != nil {
				return err
			}
		case t.kind == tIdent && ps.toks[ps.p+1].is(":"):
			ps.next()
			ps.next()
			f.body = append(f.body, stmt{kind: sLabel, pos: t, label: t.text})
		default:
			in, err := ps.instruction()
			if err != nil {
				return err
			}
			f.body = append(f.body, stmt{kind: sInst, pos: in.pos, inst: in})
		}
	}
}

// fallsOffTheEnd says whether control can reach the end of a function's body: its last
// instruction is not an unguarded ret, exit, trap or bra, or a label follows it (a branch
// to the end). ptxas takes the end of a body as a return there (exit in an entry: the
// SASS of a .func with no ret ends in RET, of an .entry in EXIT), so the parser adds
// that ret at the closing brace; without it a warp would run on into the next
// function's code. An empty body gets it too.
func fallsOffTheEnd(body []stmt) bool {
	for i := len(body) - 1; i >= 0; i-- {
		switch s := body[i]; s.kind {
		case sLabel:
			return true
		case sInst:
			if s.inst.guard != "" {
				return true
			}
			op, _, _ := strings.Cut(s.inst.opcode, ".")
			return op != "ret" && op != "exit" && op != "trap" && op != "bra"
		}
	}
	return true
}

func (ps *parser) bodyDirective(f *function) error {
	t := ps.peek()
	switch t.text {
	case ".reg", ".shared", ".local", ".param", ".const", ".global":
		d, err := ps.varDecl(t.text != ".reg" && t.text != ".param")
		if err != nil {
			return err
		}
		// .reg .b32 %r1, %r2; declares several names.
		f.body = append(f.body, stmt{kind: sDecl, pos: d.pos, decl: d})
		for ps.peek().is(",") {
			ps.next()
			n := ps.next()
			if n.kind != tIdent {
				return ps.errAt(n, "expected a name, found %s", n)
			}
			d2 := *d
			d2.name, d2.pos, d2.count, d2.dims = n.text, n, -1, nil
			if ps.peek().is("<") {
				ps.next()
				c := ps.next()
				v, err := parseInt(c.text)
				if err != nil || v < 0 || v > 1<<16 {
					return ps.errAt(c, "bad register count")
				}
				d2.count = int(v)
				if _, err := ps.expect(">"); err != nil {
					return err
				}
			}
			f.body = append(f.body, stmt{kind: sDecl, pos: n, decl: &d2})
		}
		_, err = ps.expect(";")
		return err
	case ".loc":
		ps.next()
		fi, li := ps.next(), ps.next()
		if fi.kind != tNumber || li.kind != tNumber {
			return ps.errAt(fi, "expected .loc FILE LINE COL")
		}
		a, _ := parseInt(fi.text)
		b, _ := parseInt(li.text)
		if ps.peek().kind == tNumber { // column
			ps.next()
		}
		// ,function_name label+off, inlined_at ... (nvcc 12 debug info): skip to line end.
		for ps.peek().is(",") {
			ln := ps.peek().line
			for ps.peek().kind != tEOF && ps.peek().line == ln {
				ps.next()
			}
		}
		f.body = append(f.body, stmt{kind: sLoc, pos: t, file: int(a), line: int(b)})
		return nil
	case ".pragma":
		ps.next()
		// .pragma "nounroll"; in a loop's header block: the PTX ISA's "disable loop
		// unrolling in the optimizing backend compiler" (ptxas), which LLVM and nvcc
		// put on the remainder loops they make when they unroll. The next
		// instruction carries it (format.Inst.NoUnroll); other pragmas are skipped.
		for {
			p := ps.next()
			switch {
			case p.kind == tEOF:
				return ps.errAt(p, "unterminated .pragma")
			case p.kind == tString && p.text == "nounroll":
				f.body = append(f.body, stmt{kind: sPragma, pos: p, label: p.text})
			case p.is(";"):
				return nil
			}
		}
	}
	return ps.errAt(t, "unsupported directive %s in function body", t.text)
}

func (ps *parser) paramList() ([]*varDecl, error) {
	if _, err := ps.expect("("); err != nil {
		return nil, err
	}
	var out []*varDecl
	if ps.peek().is(")") {
		ps.next()
		return out, nil
	}
	for {
		t := ps.peek()
		if t.kind != tIdent || (t.text != ".param" && t.text != ".reg") {
			return nil, ps.errAt(t, "expected .param, found %s", t)
		}
		d, err := ps.varDecl(false)
		if err != nil {
			return nil, err
		}
		if d.space == ".reg" {
			return nil, ps.errAt(d.pos, ".reg parameters are not supported")
		}
		out = append(out, d)
		n := ps.next()
		if n.is(")") {
			return out, nil
		}
		if !n.is(",") {
			return nil, ps.errAt(n, "expected ',' or ')' in parameter list, found %s", n)
		}
	}
}

// instruction parses [@[!]p] opcode operands ;
func (ps *parser) instruction() (*instAST, error) {
	start := ps.peek()
	in := &instAST{pos: start, locFile: ps.loc.file, locLine: ps.loc.line}
	if start.is("@") {
		ps.next()
		if ps.peek().is("!") {
			ps.next()
			in.gneg = true
		}
		g := ps.next()
		if g.kind != tIdent {
			return nil, ps.errAt(g, "expected a predicate after @")
		}
		in.guard = g.text
	}
	op := ps.next()
	if op.kind != tIdent || op.text[0] == '.' || op.text[0] == '%' {
		return nil, ps.errAt(op, "expected an instruction, found %s", op)
	}
	in.opcode = op.text
	if !ps.peek().is(";") {
		for {
			o, err := ps.operand(0)
			if err != nil {
				return nil, err
			}
			in.ops = append(in.ops, o)
			if ps.peek().is(",") {
				ps.next()
				continue
			}
			break
		}
	}
	end, err := ps.expect(";")
	if err != nil {
		return nil, ps.errAt(end, "expected ';' after %s, found %s", in.opcode, end)
	}
	in.text = normalizeSpace(string(ps.src[start.off:end.off]))
	return in, nil
}

func normalizeSpace(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ";"
	}
	return strings.Join(f, " ") + ";"
}

// operandList reads the comma-separated elements of a vector {a, b} or parenthesised
// (a, b) operand into o, through the closing token.
func (ps *parser) operandList(o operand, closer, where string, depth int) (operand, error) {
	for {
		e, err := ps.operand(depth + 1)
		if err != nil {
			return o, err
		}
		o.elems = append(o.elems, e)
		n := ps.next()
		if n.is(closer) {
			return o, nil
		}
		if !n.is(",") {
			return o, ps.errAt(n, "expected ',' or '%s'%s, found %s", closer, where, n)
		}
	}
}

func (ps *parser) operand(depth int) (operand, error) {
	t := ps.peek()
	if depth > 4 {
		return operand{}, ps.errAt(t, "operand nested too deeply")
	}
	switch {
	case t.is("["):
		ps.next()
		o := operand{kind: oAddr, pos: t}
		first := ps.peek()
		switch {
		case first.kind == tIdent:
			ps.next()
			o.name = first.text
		case first.kind == tNumber || first.is("-"):
			v, err := ps.intLit()
			if err != nil {
				return o, err
			}
			o.off = v
		default:
			return o, ps.errAt(first, "bad address %s", first)
		}
		for ps.peek().is("+") || ps.peek().is("-") {
			sign := ps.next()
			if sign.is("+") && ps.peek().is("-") { // [%rd1+-4]
				ps.next()
				sign = token{kind: tPunct, text: "-"}
			}
			v, err := ps.intLit()
			if err != nil {
				return o, err
			}
			if sign.text == "-" {
				v = -v
			}
			o.off += v
		}
		if ps.peek().is(",") { // [tex, {x, y}]
			ps.next()
			c, err := ps.operand(depth + 1)
			if err != nil {
				return o, err
			}
			o.elems = append(o.elems, c)
		}
		if _, err := ps.expect("]"); err != nil {
			return o, err
		}
		return o, nil
	case t.is("{"):
		ps.next()
		return ps.operandList(operand{kind: oVec, pos: t}, "}", " in vector operand", depth)
	case t.is("("):
		ps.next()
		o := operand{kind: oParen, pos: t}
		if ps.peek().is(")") {
			ps.next()
			return o, nil
		}
		return ps.operandList(o, ")", "", depth)
	case t.is("!"):
		ps.next()
		n := ps.next()
		if n.kind != tIdent {
			return operand{}, ps.errAt(n, "expected a predicate after !")
		}
		return operand{kind: oName, pos: t, name: n.text, neg: true}, nil
	case t.is("-") || t.kind == tNumber:
		neg := false
		if t.is("-") {
			ps.next()
			neg = true
		}
		n := ps.next()
		if n.kind != tNumber {
			return operand{}, ps.errAt(n, "expected a number, found %s", n)
		}
		return operand{kind: oImm, pos: t, imm: n, ineg: neg}, nil
	case t.kind == tIdent:
		ps.next()
		o := nameOrSink(t)
		if ps.peek().is("|") { // d|p, either of them the sink _ (elect.sync _|%p)
			ps.next()
			n := ps.next()
			if n.kind != tIdent {
				return o, ps.errAt(n, "expected a predicate after |")
			}
			return operand{kind: oPair, pos: t, elems: []operand{o, nameOrSink(n)}}, nil
		}
		if o.kind == oSink {
			return o, nil
		}
		if ps.peek().is("+") { // sym+off as a plain operand (mov.u64 %rd, sym+8)
			ps.next()
			v, err := ps.intLit()
			if err != nil {
				return o, err
			}
			o.off = v
		}
		return o, nil
	}
	return operand{}, ps.errAt(t, "unexpected %s in operand", t)
}

func (ps *parser) intLit() (int64, error) {
	neg := false
	if ps.peek().is("-") {
		ps.next()
		neg = true
	}
	n := ps.next()
	if n.kind != tNumber {
		return 0, ps.errAt(n, "expected an integer, found %s", n)
	}
	v, err := parseInt(n.text)
	if err != nil {
		return 0, ps.errAt(n, "bad integer %s", n.text)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// nameOrSink is the operand an identifier names: the sink _, or a name.
func nameOrSink(t token) operand {
	if t.text == "_" {
		return operand{kind: oSink, pos: t}
	}
	return operand{kind: oName, pos: t, name: t.text}
}
