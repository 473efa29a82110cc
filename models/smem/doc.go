// Package smem models shared-memory banks: how many wavefronts (serialised
// passes) one warp instruction's shared access needs, and how many ways its
// worst bank conflict has.
//
// # Rules
//
// Shared memory has Banks banks (32 on every preset) of BankWidth bytes (4,
// or 8 in Kepler's 8-byte mode). Successive BankWidth-byte words go to
// successive banks [PG cc 2.x §F.4.3, cc 3.x §F.5.3]. Within one pass:
//
//   - lanes that read the same word share it (broadcast / multicast), so a
//     bank costs one pass per distinct word it must deliver;
//   - in 8-byte mode two 32-bit words inside one 8-byte word are one word:
//     "a shared memory request for a warp does not generate a bank conflict
//     between two threads that access any sub-word within the same 64-bit
//     word" [PG cc 3.x §F.5.3];
//   - the wavefronts of a pass = the most distinct words any bank must
//     deliver (an n-way conflict costs n).
//
// # Accesses wider than a bank
//
// A warp moves at most Banks × BankWidth bytes (128 B in 4-byte mode) per
// pass, so wide accesses are split by lane groups first: with 4-byte banks,
// 8-byte accesses go as two half-warps and 16-byte accesses as four
// quarter-warps, each checked for conflicts on its own ("for 64-bit accesses,
// a bank conflict only occurs if two or more threads in either of the
// half-warps access different addresses belonging to the same bank", PG cc
// 2.x §F.4.3; the same split gives the 2 and 4 wavefronts ncu reports for
// conflict-free LDS.64 and LDS.128 on Volta and later — assumed for those
// archs, not yet checked on our H200). In 8-byte mode a pass holds 256 B, so
// 8-byte accesses go as one group and 16-byte ones as two half-warps.
//
// So d[tidx] on doubles costs 2 wavefronts in 4-byte mode and 1 in 8-byte
// mode, the difference the seed describes for Kepler's 64-bit banks.
//
// Lane groups with no active lane cost nothing. Access allocates nothing.
package smem
