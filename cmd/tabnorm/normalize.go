package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/adapters/formats"
	"github.com/tabnorm/tabnorm/adapters/httpapi"
	"github.com/tabnorm/tabnorm/adapters/spill"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
	"github.com/tabnorm/tabnorm/domain/table"
)

func newNormalizeCmd() *cobra.Command {
	var mode, schemaFile, optionsFile, outFile, errorsFile string
	var explain bool
	var listFiles []string
	cmd := &cobra.Command{
		Use:   "normalize [--mode M] [--schema FILE|JSON] [--options FILE|JSON] [--out FILE] [--errors FILE] INPUT|-",
		Short: "Normalize a file offline with the service's engine: rows as JSON lines to stdout, issues to --errors",
		Long: "normalize runs the same engine as the service on a local file. Rows go to stdout (or --out) as JSON\n" +
			"lines, issues to --errors as JSON lines, a summary to stderr. INPUT - reads the file from stdin;\n" +
			"--schema and --options take a file or inline JSON (a value starting with {). In infer mode the inferred schema and\n" +
			"profile are printed instead of rows. Exit codes: 0 the run completed (even with rejected rows),\n" +
			"1 the file could not be read or the run failed, 2 usage errors (flags, schema, options).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := normalize.ParseMode(mode)
			if err != nil {
				return usage(err)
			}
			var s *schema.Schema
			switch {
			case schemaFile != "":
				raw, err := jsonArg("schema", schemaFile)
				if err != nil {
					return err
				}
				if s, err = schema.Parse(raw); err != nil {
					return usage(schemaProblems(err))
				}
			case m != normalize.ModeInfer:
				return usage(fmt.Errorf("--schema is required in %s mode", m))
			}
			var rawOpts []byte
			if optionsFile != "" {
				if rawOpts, err = jsonArg("options", optionsFile); err != nil {
					return err
				}
			}
			opts, err := normalize.ParseOptions(m, rawOpts)
			if err != nil {
				return usage(schemaProblems(err))
			}
			input := args[0]
			if input == "-" {
				tmp, cleanup, err := spoolStdin(cmd.InOrStdin())
				if err != nil {
					return err
				}
				defer cleanup()
				input = tmp
			}
			lists, closeLists, err := openLocalLists(listFiles)
			if err != nil {
				return usage(err)
			}
			defer closeLists()
			return runNormalize(cmd, m, s, opts, lists, input, outFile, errorsFile, explain)
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "normalize", "normalize, validate or infer")
	cmd.Flags().StringVar(&schemaFile, "schema", "", "target schema: a JSON file or inline JSON; required except in infer mode")
	cmd.Flags().StringVar(&optionsFile, "options", "", "options, as in the API: a JSON file or inline JSON")
	cmd.Flags().StringVar(&outFile, "out", "", "write rows here instead of stdout")
	cmd.Flags().StringVar(&errorsFile, "errors", "", "write issues here as JSON lines")
	cmd.Flags().StringArrayVar(&listFiles, "list", nil, "ID=FILE: the reference list an inList constraint or foreignKey names, from a file of one value a line (repeatable)")
	cmd.Flags().BoolVar(&explain, "explain", false, "after the summary, print the mapping as the API's mapping[] (each column's field, method, confidence and evidence), then what was detected (format, encoding, delimiter, header row, each column's date order and decimal mark with their evidence) as JSON; its \"options\" reproduce the run")
	return cmd
}

// spoolStdin copies stdin to a temporary file: readers sniff the format
// and may read the source twice (date orders are settled from a sample
// first), which a pipe cannot do, and holding the file in memory would
// unbound the command's memory.
func spoolStdin(in io.Reader) (string, func(), error) {
	f, err := os.CreateTemp("", "tabnorm-stdin-*")
	if err != nil {
		return "", nil, fmt.Errorf("spool stdin: %w", err)
	}
	cleanup := func() { _ = os.Remove(f.Name()) }
	if _, err := io.Copy(f, in); err != nil {
		_ = f.Close()
		cleanup()
		return "", nil, fmt.Errorf("read stdin: %w", err)
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("spool stdin: %w", err)
	}
	return f.Name(), cleanup, nil
}

// schemaProblems spells out every problem of a coded validation error.
func schemaProblems(err error) error {
	if fe := fieldErrors(err); len(fe) > 0 {
		return fmt.Errorf("%s\n  %s", message(err), strings.Join(fe, "\n  "))
	}
	return err
}

// memoryTarget is the soft limit the offline command gives the garbage
// collector (unless GOMEMLIMIT says otherwise). The engine's live data is
// about 20 MiB and allocates little per row, but a unique column's index
// keeps a Bloom filter of 2 bytes per accepted row past its first 700k
// (9 MiB at 5M rows), and the heap may grow to twice the live data between
// collections: at 64 MiB the peak RSS of the contacts file was 75 MiB at 1M
// rows and 93 MiB at 5M. At 48 MiB the target binds only for files of
// millions of rows, where it costs a few more collections, and the peak
// stays flat (69 and 75 MiB); the live data stays under it up to the
// default 10M-row limit (about 40 MiB).
const memoryTarget = 48 << 20

func runNormalize(cmd *cobra.Command, m normalize.Mode, s *schema.Schema, opts normalize.Options, lists map[string]normalize.ListLookup,
	input, outFile, errorsFile string, explain bool) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryTarget)
	}
	fi, err := os.Stat(input)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	opener := formats.NewOpener()
	src := normalize.Source{Open: func() (table.Reader, error) {
		return opener.Open(cmd.Context(), input, filepath.Base(input), opts.ReadOptions(table.Limits{}))
	}}
	var files outputFiles
	defer files.abandon()
	rows := io.Writer(cmd.OutOrStdout())
	if outFile != "" {
		if rows, err = files.create(outFile); err != nil {
			return usage(err)
		}
	}
	issues := io.Discard
	if errorsFile != "" {
		if issues, err = files.create(errorsFile); err != nil {
			return usage(err)
		}
	}
	if m == normalize.ModeInfer {
		rows = io.Discard
	}
	stderr := cmd.ErrOrStderr()
	bar := progressBar(stderr, fi.Size())
	start := time.Now()
	res, err := normalize.Run(cmd.Context(), normalize.Input{Mode: m, Schema: s, Options: opts, Sources: []normalize.Source{src},
		OnProgress: bar, NewIndex: spill.Factory(""), Lists: lists}, normalize.Output{Rows: rows, Issues: issues})
	if bar != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		var f *normalize.Failure
		if errors.As(err, &f) {
			if f.Stack != "" {
				fmt.Fprintln(stderr, f.Stack)
			}
			return fmt.Errorf("%s: %s", f.Code, f.Message)
		}
		return err
	}
	if err := files.close(); err != nil {
		return err
	}
	if m == normalize.ModeInfer {
		out := inferJSON{InferredSchema: res.InferredSchema.JSON(), Profile: httpapi.NewProfileJSON(res.Profile)}
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	truncated := ""
	if res.IssuesTruncated {
		truncated = " (issue report truncated)"
	}
	fmt.Fprintf(stderr, "tabnorm: %s %s: %d rows read, %d valid, %d rejected, %d issues%s in %s\n", m, input,
		res.Progress.RowsRead, res.RowCount, res.RejectedCount, res.IssueCount, truncated, time.Since(start).Round(time.Millisecond))
	if explain {
		// The mapping as the API's mapping[]: which column went to which
		// field, how, and on what evidence.
		mapping, err := httpapi.JobRenderer{}.Mapping(res.Mapping)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "tabnorm: mapping: %s\n", mapping)
		fmt.Fprintf(stderr, "tabnorm: detected: %s\n", res.DetectedJSON())
	}
	return nil
}

// createOutput creates a file the command writes; tests replace it.
var createOutput = func(name string) (io.WriteCloser, error) { return os.Create(name) }

// outputFiles are the files a run writes. Their bytes are only safe once
// Close succeeded (a full disk or a network filesystem may report a lost
// write only then), so a run is done when close returns nil.
type outputFiles struct {
	names []string
	files []io.WriteCloser
}

func (o *outputFiles) create(name string) (io.Writer, error) {
	f, err := createOutput(name)
	if err != nil {
		return nil, err
	}
	o.names, o.files = append(o.names, name), append(o.files, f)
	return f, nil
}

// close closes every file and returns the first failure, naming its file.
func (o *outputFiles) close() error {
	var first error
	for i, f := range o.files {
		if err := f.Close(); err != nil && first == nil {
			first = fmt.Errorf("write %s: %w", o.names[i], err)
		}
	}
	o.files = nil
	return first
}

// abandon closes the files of a run that failed anyway.
func (o *outputFiles) abandon() { _ = o.close() }

// inferJSON is what infer mode prints: the inferred schema and the
// profile, as a job's result carries them.
type inferJSON struct {
	InferredSchema json.RawMessage             `json:"inferred_schema"`
	Profile        []httpapi.ColumnProfileJSON `json:"profile"`
}

// progressBar draws progress on a terminal; nil elsewhere.
func progressBar(w io.Writer, total int64) func(normalize.Progress) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 || total <= 0 {
		return nil
	}
	bw := bufio.NewWriter(f)
	return func(p normalize.Progress) {
		pct := min(100, float64(p.BytesRead)*100/float64(total))
		n := int(pct / 4)
		fmt.Fprintf(bw, "\r[%s%s] %5.1f%%  %d rows", strings.Repeat("#", n), strings.Repeat(".", 25-n), pct, p.RowsRead)
		_ = bw.Flush() // a progress bar that cannot be drawn is not a failure of the run
	}
}
