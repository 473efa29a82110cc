// Package sched models what decides, each cycle, which warp instruction an SM issues:
// the warp-scheduler policy (LRR, GTO, two-level), the per-warp scoreboard that holds an
// instruction until the registers it reads (and writes) are ready, and the execution
// pipes whose width turns a warp instruction into several cycles of occupancy (Fermi's
// 16-lane halves take 2 cycles per warp instruction), and the LSU: the memory
// instruction queue and the MSHRs a memory instruction waits for before it issues.
// Before any of that, the CTA launcher puts CTAs on the SM: a Grid hands out a launch's
// CTAs (breadth-first at first, Spread), and each SM's CTALauncher starts those it has
// room for, at most one per sm.cta_launch_ns.
//
// It is a pure component: no trace types and no I/O. The timing engine in package replay
// owns time, asks a Policy which of a scheduler's warps to issue from, checks a
// Scoreboard, and reserves a Pipe (or, for a memory instruction, the LSU).
//
//	each cycle, for each scheduler of an SM:
//	   Policy.Pick(ready) ──▶ warp w ──▶ Scoreboard.Ready(w's next inst)? ──▶ Pipe.Take(now)?
//	                                                                           │
//	   Policy.Issued(w) ◀──────────── issue: Scoreboard.Add(written regs, now + latency)
//
// Every decision breaks ties by a fixed order (warp slot, then age), so a replay that
// drives these models in a fixed order gets the same cycles on every run.
package sched
