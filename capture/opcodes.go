package capture

// An opFamily is one family of PTX opcodes, in the file named after it (op_*.go): the
// rules that decode its opcodes into the compact instruction and its program-table row,
// and their execution. A computing instruction (opCompute) carries its execution as
// instr.run, picked by its decoder: a loop of its own, or runLanes over its lane
// function. Control flow, loads, stores, atomics and texture fetches keep an opcode of
// their own, since the SIMT layer (simt.go), the linker and the memory path (exec.go)
// must know them; their families hold what is theirs (atomic, texInst, shfl, vote).
// Adding an opcode is a rule and its execution in its family's file; TestOpcodeTable
// keeps the table in doc.go in step with the rules.
type opFamily struct {
	name  string
	rules []opRule
	// halfTypes: the rules take an opcode when it names a half-precision type (.f16
	// .bf16 .f16x2 .bf16x2); the same opcode's other forms are another family's.
	halfTypes bool
}

// An opRule decodes the opcodes that share its operands and modifiers.
type opRule struct {
	names []string
	mods  modKinds // the modifiers this rule reads as its own (parseMods)
	// doc is the rule's row of the opcode table in doc.go: the types and modifiers
	// capture takes, one line per "\n". Regenerate the table with
	// go test ./capture -run TestOpcodeTable -update-opcodes.
	doc    string
	decode func(r *resolver) error
	// halfOwn: the rule decodes half-precision types itself (mma's f16 and bf16
	// inputs), instead of the half family's rule of the same name.
	halfOwn bool
}

// opFamilies is every opcode capture decodes, family by family, in the order of the
// table in doc.go.
var opFamilies = []*opFamily{
	&moveFamily, &memoryFamily, &arithFamily, &carryFamily, &bitsFamily, &compareFamily,
	&controlFamily, &syncFamily, &mbarrierFamily, &atomicFamily, &warpFamily, &textureFamily, &halfFamily,
	&matrixFamily, &videoFamily,
}

// opRules is the rule of each opcode's base name; halfRules of those naming a
// half-precision type.
var opRules, halfRules = rulesByName(false), rulesByName(true)

func rulesByName(half bool) map[string]*opRule {
	rules := map[string]*opRule{}
	for _, f := range opFamilies {
		if f.halfTypes != half {
			continue
		}
		for i := range f.rules {
			for _, n := range f.rules[i].names {
				rules[n] = &f.rules[i]
			}
		}
	}
	return rules
}
