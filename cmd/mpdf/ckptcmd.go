package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/internal/cliflag"
)

func init() {
	register[inspectFlags]("inspect CKPT [--json]", cobra.ExactArgs(1))
	register[exportFlags]("export CKPT --safetensors OUT [--reference]", cobra.ExactArgs(1))
}

// inspectFlags are inspect's flags.
type inspectFlags struct{ asJSON bool }

func (fl *inspectFlags) Add(cmd *cobra.Command) { shared(cmd.Flags(), &fl.asJSON, "json", "") }

// Run prints the header of the checkpoint args[0] (checkpoints.Inspect).
func (fl *inspectFlags) Run(cmd *cobra.Command, args []string) error {
	d, err := checkpoints.Inspect(args[0])
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, d, d.WriteText)
}

// exportFlags are export's flags.
type exportFlags struct {
	out       string
	reference bool
}

func (fl *exportFlags) Add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&fl.out, "safetensors", "", "output safetensors file (required)")
	cmd.Flags().BoolVar(&fl.reference, "reference", false, "export the frozen reference policy instead of the trained one")
	_ = cmd.MarkFlagRequired("safetensors")
}

// Run exports the checkpoint args[0] (checkpoints.Export) and says what
// it wrote.
func (fl *exportFlags) Run(cmd *cobra.Command, args []string) error {
	ck, net, err := checkpoints.Export(args[0], fl.out, fl.reference)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), checkpoints.ExportLine(args[0], fl.out, ck, net, fl.reference))
	return err
}
