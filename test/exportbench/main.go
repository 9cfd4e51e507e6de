// Command exportbench writes a rows JSON-lines file as XLSX or Parquet
// with tabnorm's export package, for docs/benchmarks.md:
//
//	exportbench xlsx|parquet SCHEMA ROWS.jsonl OUT
//
// With EXPORTBENCH_CPUPROFILE=FILE it writes a CPU profile of the run
// there (go tool pprof).
//
// pandas_export.py beside it is pandas' side of the comparison.
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/tabnorm/tabnorm/adapters/export"
	"github.com/tabnorm/tabnorm/domain/schema"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: exportbench xlsx|parquet SCHEMA ROWS.jsonl OUT")
		os.Exit(2)
	}
	if path := os.Getenv("EXPORTBENCH_CPUPROFILE"); path != "" {
		stop, err := profile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer stop()
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1) //nolint:gocritic // the profile of a failed run is not wanted
	}
}

// profile starts a CPU profile into path; stop ends and writes it.
func profile(path string) (stop func(), err error) {
	f, err := os.Create(path) // #nosec G304 -- the benchmark's own output
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

func run(format, schemaPath, in, out string) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	s, err := schema.Parse(raw)
	if err != nil {
		return err
	}
	cols := export.Columns(s)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	switch format {
	case "xlsx":
		err = withRows(in, func(r *os.File) error { return export.WriteRowsXLSX(w, r, cols, export.XLSXOptions{}) })
	case "parquet":
		var plans []export.ColumnPlan
		err = withRows(in, func(r *os.File) (perr error) { plans, perr = export.PlanParquet(r, cols); return perr })
		if err == nil {
			err = withRows(in, func(r *os.File) error {
				return export.WriteRowsParquet(w, r, cols, plans, export.ParquetOptions{})
			})
		}
	default:
		err = fmt.Errorf("format %q: xlsx or parquet", format)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// withRows opens the rows file for one pass.
func withRows(path string, pass func(*os.File) error) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }() // read only
	return pass(r)
}
