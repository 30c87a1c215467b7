package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// Output formats of -o/--output.
const (
	outJSON  = "json"
	outTable = "table"
)

// outputFlag adds -o/--output to a read command. Commands whose answer has
// a table form accept "table" too.
func outputFlag(cmd *cobra.Command, dst *string, table bool) {
	help := `output format: "json" (pretty, as pulsar-admin prints it)`
	formats := []string{outJSON}
	if table {
		help = `output format: "json" (pretty, as pulsar-admin prints it) or "table"`
		formats = append(formats, outTable)
	}
	cmd.Flags().StringVarP(dst, "output", "o", outJSON, help)
	cmd.PreRunE = func(*cobra.Command, []string) error { return checkOutput(*dst, table) }
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// checkOutput rejects a format the command does not know.
func checkOutput(format string, table bool) error {
	switch {
	case format == outJSON:
		return nil
	case format == outTable && table:
		return nil
	case table:
		return fmt.Errorf(`--output %q: want "json" or "table"`, format)
	default:
		return fmt.Errorf(`--output %q: this command prints "json" only`, format)
	}
}

// printJSON prints v as indented JSON, HTML characters left as they are.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printRawJSON re-indents a JSON body as received, so that fields this
// version of fwadmin does not know are shown too.
func printRawJSON(w io.Writer, body []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(body), "", "  "); err != nil {
		_, err = w.Write(body)
		return err
	}
	buf.WriteByte('\n')
	_, err := buf.WriteTo(w)
	return err
}

// table prints rows under a header, columns aligned.
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		for i := range r {
			if r[i] == "" {
				r[i] = "-"
			}
		}
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}
