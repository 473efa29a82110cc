// Package report turns a replay into what a person reads: the advisor's findings (the
// seed lessons as rules that fire on measured conditions at an instruction), and later
// the HTML report built on them.
//
// A rule reads two things: the replay's per-pc metrics for the arch asked for (sectors
// per request, shared wavefronts, SIMD efficiency), and a sample of the trace's own
// addresses and masks at that pc (the stride between lanes, the ideal sector count, the
// shape of a divergent mask), which say why the metric is high and so which lesson
// applies. Each finding names the pc and its source line, what was measured, the lesson
// (seed document and version), the change to make, and the expected gain as a metric at
// that pc before and after, which a test checks against the fixed reference kernel.
package report
