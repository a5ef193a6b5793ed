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
	cmd := &cobra.Command{
		Use:   "inspect CKPT [--json]",
		Short: "Print a checkpoint's header: step, seed, model, metrics, training config",
		Long: `Inspect prints what a checkpoint (.mpdf) holds: the feature-schema version
it was trained on (and whether this build's featurizer matches it), the
optimiser step and seed, the policy network's sizes and activation, whether
it carries a KL reference policy, Adam state and a random-source state, the
latest metrics, where the data reader stood, where the confidence of its
training states came from (text-critic: a replay with critic=on; none: a
replay without; given: the simulator; unknown: offline data), and the
resolved training configuration. A .safetensors export shows its network and metadata.
The file is fully read and checked (checksums, finite weights).`,
		Example: `  mpdf inspect runs/best.mpdf
  mpdf inspect runs/policy.safetensors --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := checkpoints.Inspect(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), d)
			}
			return d.WriteText(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the header as JSON")
	return cmd
}

func newExportCmd() *cobra.Command {
	var (
		out       string
		reference bool
	)
	cmd := &cobra.Command{
		Use:   "export CKPT --safetensors OUT [--reference]",
		Short: "Export a checkpoint's policy weights as safetensors (PyTorch nn.Linear layout)",
		Long: `Export writes the policy network of a checkpoint (or, with --reference, its
frozen KL reference policy) as a safetensors file: float32 tensors
layers.{i}.weight [out, in] and layers.{i}.bias [out], layer 0 first, the
layout of a PyTorch nn.Linear stack. The metadata records the activation,
the feature-schema version ("feature_version"), "format": "pt", and the
checkpoint's step ("mpdf.step") and which network it is ("mpdf.weights":
policy or reference), and where the confidence of its training came from
("mpdf.confidence_source": text-critic, none, given or unknown; see mpdf
inspect). The file is written atomically. Such a file is a
--policy of mpdf simulate, mpdf eval and mpdf collect.`,
		Example: `  mpdf export runs/best.mpdf --safetensors runs/policy.safetensors
  mpdf export runs/best.mpdf --reference --safetensors runs/reference.safetensors`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
		},
	}
	cmd.Flags().StringVar(&out, "safetensors", "", "output safetensors file (required)")
	cmd.Flags().BoolVar(&reference, "reference", false, "export the frozen reference policy instead of the trained one")
	_ = cmd.MarkFlagRequired("safetensors")
	return cmd
}
