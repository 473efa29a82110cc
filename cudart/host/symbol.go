package host

import (
	"errors"
	"fmt"

	"github.com/gtrace/gtrace/capture"
	"github.com/gtrace/gtrace/cudart/fatbin"
)

// RegisterVar binds a __device__ or __constant__ variable's host shadow (the address
// the symbol calls are given) to its PTX name in module handle. Its module's variables
// are placed on the Device at the first symbol call, or by the module's first launch.
func (r *Runtime) RegisterVar(handle int, hostVar uintptr, name string, size uint64, constant bool) error {
	m, err := r.module("__cudaRegisterVar("+name+")", handle)
	if err != nil {
		return err
	}
	r.vars[hostVar] = &variable{mod: m, name: name, size: size, constant: constant}
	return nil
}

// symbol finds the variable whose host shadow is hostVar, with its module loaded.
func (r *Runtime) symbol(call string, hostVar uintptr) (*variable, capture.Symbol, error) {
	v, ok := r.vars[hostVar]
	if !ok {
		return nil, capture.Symbol{}, fail(InvalidSymbol, "%s: %#x is no registered __device__ or __constant__ variable", call, hostVar)
	}
	if v.key == "" {
		e, err := fatbin.PTXForVar(v.mod.entries, v.name)
		if err != nil {
			return nil, capture.Symbol{}, fail(InvalidSymbol, "%s(%s): %v", call, v.name, err)
		}
		if v.key, err = r.dev.LoadModule(v.name+".ptx", e.Data); err != nil {
			return nil, capture.Symbol{}, fail(InvalidPTX, "%s(%s): %v", call, v.name, err)
		}
	}
	s, err := r.dev.Symbol(v.key, v.name)
	if err != nil {
		return nil, capture.Symbol{}, fail(InvalidSymbol, "%s: %v", call, err)
	}
	if s.Size != v.size || s.Const != v.constant {
		return nil, capture.Symbol{}, fail(InvalidSymbol, "%s(%s): registered as %s, the PTX declares %s", call, v.name, varKind(v.size, v.constant), varKind(s.Size, s.Const))
	}
	return v, s, nil
}

func varKind(size uint64, constant bool) string {
	space := "__device__"
	if constant {
		space = "__constant__"
	}
	return fmt.Sprintf("%s of %d bytes", space, size)
}

// symbolErr turns a Device's symbol error into the runtime's code.
func symbolErr(call, name string, err error) error {
	var se *capture.SymbolError
	if errors.As(err, &se) && se.Missing {
		return fail(InvalidSymbol, "%s: %v", call, err)
	}
	return fail(InvalidValue, "%s(%s): %v", call, name, err)
}

// symbolCopy checks a symbol copy's stream and finds its variable.
func (r *Runtime) symbolCopy(c Copy, hostVar uintptr) (*variable, error) {
	if err := r.CheckStream(c.Call, c.Stream); err != nil {
		return nil, err
	}
	v, _, err := r.symbol(c.Call, hostVar)
	return v, err
}

// MemcpyToSymbol is cudaMemcpyToSymbol of len(srcHost) bytes from src into the variable
// whose host shadow is hostVar, at byte offset off, made by c. srcHost is the host's memory at
// src, read only when src is the host's.
func (r *Runtime) MemcpyToSymbol(c Copy, hostVar uintptr, src uint64, srcHost []byte, off uint64, kind MemcpyKind) error {
	call := c.Call
	v, err := r.symbolCopy(c, hostVar)
	if err != nil {
		return err
	}
	data := srcHost
	switch kind = kind.resolve(r.dev.Holds(src), true); kind {
	case HostToDevice:
	case DeviceToDevice:
		data = make([]byte, len(srcHost))
		if err := r.dev.Read(src, data); err != nil {
			return fail(InvalidValue, "%s(%s) %s: %v", call, v.name, kind, err)
		}
	default:
		return fail(InvalidMemcpyDir, "%s(%s): a copy to a symbol is HtoD or DtoD, not %s", call, v.name, kind)
	}
	if err := r.dev.WriteSymbol(v.key, v.name, off, data); err != nil {
		return symbolErr(call, v.name, err)
	}
	r.record(c, kind, uint64(len(srcHost)), src, uint64(len(srcHost)))
	return nil
}

// MemcpyFromSymbol is cudaMemcpyFromSymbol of len(dstHost) bytes of the variable whose
// host shadow is hostVar, from byte offset off, to dst, made by c. dstHost is the host's memory at
// dst, written only when dst is the host's.
func (r *Runtime) MemcpyFromSymbol(c Copy, dst uint64, dstHost []byte, hostVar uintptr, off uint64, kind MemcpyKind) error {
	call := c.Call
	v, err := r.symbolCopy(c, hostVar)
	if err != nil {
		return err
	}
	switch kind = kind.resolve(true, r.dev.Holds(dst)); kind {
	case DeviceToHost:
		err = r.dev.ReadSymbol(v.key, v.name, off, dstHost)
	case DeviceToDevice:
		buf := make([]byte, len(dstHost))
		if err = r.dev.ReadSymbol(v.key, v.name, off, buf); err == nil {
			if err := r.dev.Write(dst, buf); err != nil {
				return fail(InvalidValue, "%s(%s) %s: %v", call, v.name, kind, err)
			}
		}
	default:
		return fail(InvalidMemcpyDir, "%s(%s): a copy from a symbol is DtoH or DtoD, not %s", call, v.name, kind)
	}
	if err != nil {
		return symbolErr(call, v.name, err)
	}
	r.record(c, kind, uint64(len(dstHost)), dst, uint64(len(dstHost)))
	return nil
}

// SymbolAddress is cudaGetSymbolAddress: the device address of a __device__ variable.
// A __constant__ one has none under gtrace (its bank is not in the global address
// space, where a GPU maps it): the call says so and names cudaMemcpyToSymbol.
func (r *Runtime) SymbolAddress(hostVar uintptr) (uint64, error) {
	const call = "cudaGetSymbolAddress"
	v, s, err := r.symbol(call, hostVar)
	if err != nil {
		return 0, err
	}
	if s.Const {
		return 0, fail(NotSupported, "%s(%s): a __constant__ variable has no device address under gtrace; copy to it with cudaMemcpyToSymbol", call, v.name)
	}
	return s.Addr, nil
}

// SymbolSize is cudaGetSymbolSize.
func (r *Runtime) SymbolSize(hostVar uintptr) (uint64, error) {
	_, s, err := r.symbol("cudaGetSymbolSize", hostVar)
	return s.Size, err
}
