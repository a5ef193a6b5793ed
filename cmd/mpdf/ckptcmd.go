package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

func init() {
	register(newInspectCmd)
	register(newExportCmd)
}

// netInfo describes a network's shape.
type netInfo struct {
	Sizes      []int  `json:"sizes"`
	Activation string `json:"activation"`
	Params     int    `json:"params"`
}

func describeNet(m *nn.MLP[float32]) netInfo {
	return netInfo{Sizes: m.Sizes, Activation: m.Act.String(), Params: len(m.Params)}
}

func (n netInfo) String() string {
	s := make([]string, len(n.Sizes))
	for i, v := range n.Sizes {
		s[i] = strconv.Itoa(v)
	}
	return fmt.Sprintf("MLP %s, %s, %d parameters", strings.Join(s, " → "), n.Activation, n.Params)
}

// ckptInfo is what inspect prints about a checkpoint.
type ckptInfo struct {
	File           string `json:"file"`
	Bytes          int64  `json:"bytes"`
	FeatureVersion string `json:"feature_version"`
	// Usable says whether the layout is this build's default (train
	// --resume and --init without --features take it).
	Usable bool `json:"feature_version_matches_build"`
	// RunsHere says whether this build knows the layout: simulate, eval,
	// collect, serve and export run the policy through it.
	RunsHere  bool               `json:"feature_version_runs_here"`
	Step      int64              `json:"step"`
	Seed      uint64             `json:"seed"`
	Policy    netInfo            `json:"policy"`
	Reference *netInfo           `json:"reference"`
	Adam      *adamInfo          `json:"adam"`
	RNGBytes  int                `json:"rng_state_bytes"`
	Metrics   map[string]float64 `json:"metrics"`
	Train     json.RawMessage    `json:"train,omitempty"`
	DataPos   json.RawMessage    `json:"data_pos,omitempty"`
	// ConfidenceSource is where the confidence of the training states
	// came from (checkpoints.ConfidenceSource).
	ConfidenceSource string `json:"confidence_source"`
}

type adamInfo struct {
	Step   int64         `json:"step"`
	Config nn.AdamConfig `json:"config"`
}

// stInfo is what inspect prints about a safetensors export.
type stInfo struct {
	File     string            `json:"file"`
	Bytes    int64             `json:"bytes"`
	Policy   netInfo           `json:"policy"`
	Metadata map[string]string `json:"metadata"`
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
			path := args[0]
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			o := cmd.OutOrStdout()
			if strings.EqualFold(filepath.Ext(path), ".safetensors") {
				m, meta, err := checkpoints.LoadSafetensors(path, checkpoints.WithFeatureVersion(""))
				if err != nil {
					return err
				}
				info := stInfo{File: path, Bytes: fi.Size(), Policy: describeNet(m), Metadata: meta}
				if asJSON {
					return printJSON(o, info)
				}
				return writeSTInfo(o, info)
			}
			ck, err := checkpoints.Load(path, checkpoints.WithFeatureVersion(""))
			if err != nil {
				return err
			}
			h := ck.Header
			info := ckptInfo{
				File: path, Bytes: fi.Size(), FeatureVersion: h.FeatureVersion,
				Usable: h.FeatureVersion == metapolicy.FeatureVersion, RunsHere: layoutRuns(h.FeatureVersion),
				Step: h.Step, Seed: h.Seed, Policy: describeNet(ck.Policy), RNGBytes: len(ck.RNG),
				Metrics: h.Metrics, Train: h.Train, DataPos: h.DataPos,
				ConfidenceSource: checkpoints.ConfidenceSource(&h),
			}
			if info.Metrics == nil {
				info.Metrics = map[string]float64{}
			}
			if ck.Reference != nil {
				r := describeNet(ck.Reference)
				info.Reference = &r
			}
			if ck.Adam != nil {
				info.Adam = &adamInfo{Step: ck.Adam.Step, Config: ck.Adam.Config}
			}
			if asJSON {
				return printJSON(o, info)
			}
			return writeCkptInfo(o, info)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the header as JSON")
	return cmd
}

func writeCkptInfo(w io.Writer, c ckptInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s (%d bytes)\n", c.File, c.Bytes)
	match := layoutNote(c.FeatureVersion)
	fmt.Fprintf(tw, "feature version\t%s (%s)\n", c.FeatureVersion, match)
	fmt.Fprintf(tw, "step\t%d\n", c.Step)
	fmt.Fprintf(tw, "seed\t%d\n", c.Seed)
	fmt.Fprintf(tw, "policy\t%s\n", c.Policy)
	if c.Reference != nil {
		fmt.Fprintf(tw, "reference\tyes: %s\n", *c.Reference)
	} else {
		fmt.Fprintf(tw, "reference\tnone\n")
	}
	if a := c.Adam; a != nil {
		fmt.Fprintf(tw, "adam state\tyes: step %d, lr %g, beta1 %g, beta2 %g, eps %g\n",
			a.Step, a.Config.LR, a.Config.Beta1, a.Config.Beta2, a.Config.Eps)
	} else {
		fmt.Fprintf(tw, "adam state\tnone (weights only)\n")
	}
	if c.RNGBytes > 0 {
		fmt.Fprintf(tw, "rng state\t%d bytes\n", c.RNGBytes)
	} else {
		fmt.Fprintf(tw, "rng state\tnone\n")
	}
	if len(c.DataPos) > 0 {
		fmt.Fprintf(tw, "data position\t%s\n", c.DataPos)
	}
	fmt.Fprintf(tw, "confidence source\t%s\n", confidenceNote(c.ConfidenceSource))
	if len(c.Metrics) == 0 {
		fmt.Fprintf(tw, "metrics\tnone\n")
	} else {
		fmt.Fprintf(tw, "metrics\t\n")
		keys := make([]string, 0, len(c.Metrics))
		for k := range c.Metrics {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(tw, "  %s\t%.6g\n", k, c.Metrics[k])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.Train) == 0 {
		_, err := fmt.Fprintln(w, "training config: none")
		return err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, c.Train, "", "  "); err != nil {
		return fmt.Errorf("%s: training config: %w", c.File, err)
	}
	_, err := fmt.Fprintf(w, "training config:\n%s\n", pretty.Bytes())
	return err
}

// confidenceNote explains a checkpoints.ConfidenceSource value.
func confidenceNote(src string) string {
	switch src {
	case checkpoints.ConfidenceTextCritic:
		return src + " (a replay with critic=on: run it where the confidence is the text critic's, e.g. mpdf serve --critic)"
	case checkpoints.ConfidenceNone:
		return src + " (a replay without the critic: the confidence was always missing)"
	case checkpoints.ConfidenceGiven:
		return src + " (the simulator's critic)"
	}
	return src + " (not recorded)"
}

func writeSTInfo(w io.Writer, s stInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s (%d bytes, safetensors)\n", s.File, s.Bytes)
	fmt.Fprintf(tw, "policy\t%s\n", s.Policy)
	keys := make([]string, 0, len(s.Metadata))
	for k := range s.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(tw, "metadata\t\n")
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s\t%s\n", k, s.Metadata[k])
	}
	if v := s.Metadata[checkpoints.MetaFeatureVersion]; !layoutRuns(v) {
		fmt.Fprintf(tw, "warning\tfeature version %q: %s\n", v, layoutNote(v))
	}
	return tw.Flush()
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
		Example: `  mpdf export runs/best.mpdf --safetensors policy.safetensors
  mpdf export runs/best.mpdf --reference --safetensors reference.safetensors`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ck, err := checkpoints.Load(args[0], checkpoints.WithFeatureVersion(""))
			if err != nil {
				return err
			}
			net, which := ck.Policy, "policy"
			if reference {
				if ck.Reference == nil {
					return fmt.Errorf("%s has no reference policy (it was saved without one)", args[0])
				}
				net, which = ck.Reference, "reference"
			}
			meta := map[string]string{
				checkpoints.MetaActivation:       net.Act.String(),
				checkpoints.MetaFeatureVersion:   ck.Header.FeatureVersion,
				"mpdf.step":                      strconv.FormatInt(ck.Header.Step, 10),
				"mpdf.weights":                   which,
				checkpoints.MetaConfidenceSource: checkpoints.ConfidenceSource(&ck.Header),
			}
			if err := checkpoints.SaveSafetensors(out, net, meta); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s weights of %s at step %d (%s, feature version %s)\n",
				out, which, args[0], ck.Header.Step, describeNet(net), ck.Header.FeatureVersion)
			return err
		},
	}
	cmd.Flags().StringVar(&out, "safetensors", "", "output safetensors file (required)")
	cmd.Flags().BoolVar(&reference, "reference", false, "export the frozen reference policy instead of the trained one")
	_ = cmd.MarkFlagRequired("safetensors")
	return cmd
}

// layoutRuns says whether this build has the feature layout called v
// (metapolicy.FeaturizerFor knows it; "" would mean the default).
func layoutRuns(v string) bool {
	_, err := metapolicy.FeaturizerFor(v)
	return v != "" && err == nil
}

// layoutNote says whether and how this build runs a policy of layout v.
func layoutNote(v string) string {
	switch {
	case v == metapolicy.FeatureVersion:
		return "matches this build"
	case layoutRuns(v):
		return fmt.Sprintf("a layout this build runs, not its default %s (train --init from it with --features %s)", metapolicy.FeatureVersion, v)
	}
	var known []string
	for _, f := range metapolicy.Featurizers() {
		known = append(known, f.Version)
	}
	return fmt.Sprintf("unknown to this build, which runs %s: the policy cannot run here", strings.Join(known, " and "))
}
