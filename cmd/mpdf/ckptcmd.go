package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/checkpoints"
)

func init() {
	register(newInspectCmd)
	register(newExportCmd)
}

func newInspectCmd() *cobra.Command {
	var asJSON bool
	cmd := command("inspect CKPT [--json]", cobra.ExactArgs(1), func(cmd *cobra.Command, args []string) error {
		d, err := checkpoints.Inspect(args[0])
		if err != nil {
			return err
		}
		return show(cmd, asJSON, d, d.WriteText)
	})
	shared(cmd.Flags(), &asJSON, "json", "")
	return cmd
}

func newExportCmd() *cobra.Command {
	var (
		out       string
		reference bool
	)
	cmd := command("export CKPT --safetensors OUT [--reference]", cobra.ExactArgs(1), func(cmd *cobra.Command, args []string) error {
		ck, net, err := checkpoints.Export(args[0], out, reference)
		if err != nil {
			return err
		}
		which := "policy"
		if reference {
			which = "reference"
		}
		_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s weights of %s at step %d (%s, feature version %s)\n",
			out, which, args[0], ck.Header.Step, checkpoints.DescribeNet(net), ck.Header.FeatureVersion)
		return err
	})
	cmd.Flags().StringVar(&out, "safetensors", "", "output safetensors file (required)")
	cmd.Flags().BoolVar(&reference, "reference", false, "export the frozen reference policy instead of the trained one")
	_ = cmd.MarkFlagRequired("safetensors")
	return cmd
}
