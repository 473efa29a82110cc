package replay

import (
	"path/filepath"
	"strings"

	"github.com/gtrace/gtrace/models/arch"
)

// ComparedMetrics are the rows a comparison shows by default: the ones that differ
// between architectures for the seed lessons.
var ComparedMetrics = []string{
	"smsp__inst_executed.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	"gtrace__global_ld_transactions.sum",
	"gtrace__global_ld_bus_utilization.pct",
	"gtrace__global_st_transactions.sum",
	"gtrace__global_st_bus_utilization.pct",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
	"l1tex__t_sector_hit_rate.pct",
	"l1tex__t_sectors_pipe_tex_mem_texture.sum",
	"idc__requests.sum",
	"lts__t_sectors_srcunit_tex_op_read.sum",
	"lts__t_sectors_srcunit_tex_op_write.sum",
	"lts__t_sector_hit_rate.pct",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"gtrace__dram_row_hit_rate.pct",
	"gtrace__dram_burst_utilization.pct",
	"gtrace__dram_channel_imbalance",
	"gtrace__simd_efficiency.pct",
	"gtrace__ctas_per_sm",
}

// Column is one trace replayed on one configuration: a column of a comparison.
type Column struct {
	Label  string
	Report *Report
}

// ColumnLabel names the column of trace file on cfg, one of cfgs, in a comparison of
// nfiles traces: "arch/gpu" for one trace, else the file's name without ".gtrace" and
// "@arch", or "@arch/gpu" where two of cfgs share cfg's arch.
func ColumnLabel(file string, nfiles int, cfg *arch.Config, cfgs []*arch.Config) string {
	if nfiles <= 1 {
		return cfg.Arch + "/" + cfg.GPU
	}
	on := cfg.Arch
	for _, o := range cfgs {
		if o != cfg && o.Arch == cfg.Arch {
			on += "/" + cfg.GPU
			break
		}
	}
	return strings.TrimSuffix(filepath.Base(file), ".gtrace") + "@" + on
}

// Comparison is one kernel launch (by its index in each trace) across the columns.
type Comparison struct {
	Names []string // the launch's kernel name in each column, each name once, in column order
	Rows  []ComparedRow
}

// ComparedRow is one metric across the columns; Has[i] is false where column i did not
// count it (or has no such launch).
type ComparedRow struct {
	Metric string
	Values []float64
	Has    []bool
}

// Compare lines the columns' launches up by index, one Comparison per launch index, with
// a row per metric: metrics, or, when nil, every metric of the first column that has
// the launch.
func Compare(cols []Column, metrics []string) []Comparison {
	nk := 0
	for _, col := range cols {
		nk = max(nk, len(col.Report.Kernels))
	}
	out := make([]Comparison, nk)
	for ki := range out {
		c := &out[ki]
		var first *KernelReport
		for _, col := range cols {
			if ki < len(col.Report.Kernels) {
				k := &col.Report.Kernels[ki]
				if first == nil {
					first = k
				}
				if len(c.Names) == 0 || c.Names[len(c.Names)-1] != k.Name {
					c.Names = append(c.Names, k.Name)
				}
			}
		}
		names := metrics
		if names == nil {
			for _, m := range first.Metrics {
				names = append(names, m.Name)
			}
		}
		for _, name := range names {
			row := ComparedRow{Metric: name, Values: make([]float64, len(cols)), Has: make([]bool, len(cols))}
			for i, col := range cols {
				if ki < len(col.Report.Kernels) {
					row.Values[i], row.Has[i] = col.Report.Kernels[ki].Metric(name)
				}
			}
			c.Rows = append(c.Rows, row)
		}
	}
	return out
}
