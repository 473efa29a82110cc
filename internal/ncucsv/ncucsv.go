// Package ncucsv reads Nsight Compute's `ncu --csv --page details` output: one row per
// metric of each profiled launch. kernels/hwcheck turns it into ground truth; tests
// read the hardware probes under traces/hw with it.
package ncucsv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Row is one metric of one profiled launch.
type Row struct {
	ID                  int // ncu's result ID: launches in profiling order from 0
	Kernel, Grid, Block string
	Metric, Unit, Value string
}

// ReadFile is Read of the file at path; a parse error names the file.
func ReadFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// Read reads `ncu --csv --page details` output. Lines that are not CSV records (ncu's
// ==PROF== chatter, the program's own output) are skipped; columns are found by their
// header names, so ncu versions that add columns still parse.
func Read(r io.Reader) ([]Row, error) {
	var buf bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), `"`) {
			buf.WriteString(sc.Text())
			buf.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	cr := csv.NewReader(&buf)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no CSV records")
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"ID", "Kernel Name", "Grid Size", "Block Size", "Metric Name", "Metric Unit", "Metric Value"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("header %q has no column %q (want ncu --csv --page details)", strings.Join(recs[0], ","), h)
		}
	}
	var rows []Row
	for n, rec := range recs[1:] {
		if len(rec) != len(recs[0]) {
			return nil, fmt.Errorf("record %d: %d fields, header has %d", n+2, len(rec), len(recs[0]))
		}
		id, err := strconv.Atoi(rec[col["ID"]])
		if err != nil {
			return nil, fmt.Errorf("record %d: ID %q: %v", n+2, rec[col["ID"]], err)
		}
		rows = append(rows, Row{
			ID: id, Kernel: rec[col["Kernel Name"]], Grid: rec[col["Grid Size"]], Block: rec[col["Block Size"]],
			Metric: rec[col["Metric Name"]], Unit: rec[col["Metric Unit"]], Value: rec[col["Metric Value"]],
		})
	}
	return rows, nil
}

// Number parses a value printed with --print-units base: thousands separators are
// commas, the decimal mark a point.
func Number(s string) (float64, error) {
	return strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), 64)
}
