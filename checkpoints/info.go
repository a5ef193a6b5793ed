package checkpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/outfile"
)

// Description is what [Inspect] says of a policy file: an [*Info] for a
// checkpoint, a [*SafetensorsInfo] for a safetensors export. Each encodes
// to JSON as itself and writes a text table with WriteText.
type Description interface {
	WriteText(w io.Writer) error
}

// NetInfo describes a network's shape.
type NetInfo struct {
	Sizes      []int  `json:"sizes"`
	Activation string `json:"activation"`
	Params     int    `json:"params"`
	// Attn is the attention front's width d (nn.MLP.Attn), omitted for
	// an MLP.
	Attn int `json:"attn_dim,omitempty"`
}

// DescribeNet is m's shape.
func DescribeNet(m *nn.MLP[float32]) NetInfo {
	return NetInfo{Sizes: m.Sizes, Activation: m.Act.String(), Params: len(m.Params), Attn: m.Attn}
}

// String is "MLP 26 → 8 → 3, tanh, 243 parameters", or for an attention
// network "attention d=16 over 7 peer slots, then MLP 42 → 64 → 3, ...".
func (n NetInfo) String() string {
	s := make([]string, len(n.Sizes))
	for i, v := range n.Sizes {
		s[i] = strconv.Itoa(v)
	}
	arch := ""
	if n.Attn > 0 {
		arch = fmt.Sprintf("attention d=%d over %d peer slots (%d features), then ", n.Attn, nn.AttnSlots, nn.AttnIn)
	}
	return fmt.Sprintf("%sMLP %s, %s, %d parameters", arch, strings.Join(s, " → "), n.Activation, n.Params)
}

// Info is what a checkpoint holds, as mpdf inspect prints it.
type Info struct {
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
	Policy    NetInfo            `json:"policy"`
	Reference *NetInfo           `json:"reference"`
	Adam      *AdamInfo          `json:"adam"`
	RNGBytes  int                `json:"rng_state_bytes"`
	Metrics   map[string]float64 `json:"metrics"`
	Train     json.RawMessage    `json:"train,omitempty"`
	DataPos   json.RawMessage    `json:"data_pos,omitempty"`
	// ConfidenceSource is where the confidence of the training states
	// came from ([ConfidenceSource]).
	ConfidenceSource string `json:"confidence_source"`
	// Networks name a decoupled policy's networks (Checkpoint.NetKeys),
	// each of Policy's shape; absent for one shared network.
	Networks []string `json:"networks,omitempty"`
}

// AdamInfo is a checkpoint's optimiser state, its moments left out.
type AdamInfo struct {
	Step   int64         `json:"step"`
	Config nn.AdamConfig `json:"config"`
}

// SafetensorsInfo is what a safetensors export holds.
type SafetensorsInfo struct {
	File     string            `json:"file"`
	Bytes    int64             `json:"bytes"`
	Policy   NetInfo           `json:"policy"`
	Metadata map[string]string `json:"metadata"`
	// Networks name a decoupled policy's networks (MetaNetworks), each of
	// Policy's shape, plus the fallback; absent for one network.
	Networks []string `json:"networks,omitempty"`
}

// Inspect reads the checkpoint (.mpdf) or safetensors export
// (.safetensors, by its extension) at path whole, checked (checksums,
// finite weights) but of any feature version, and describes it.
func Inspect(path string) (Description, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(path), ".safetensors") {
		m, nets, meta, err := LoadSafetensorsAny(path, WithFeatureVersion(""))
		if err != nil {
			return nil, err
		}
		info := &SafetensorsInfo{File: path, Bytes: fi.Size(), Metadata: meta}
		if nets != nil {
			m, info.Networks = nets.Fallback, nets.Keys
		}
		info.Policy = DescribeNet(m)
		return info, nil
	}
	ck, err := Load(path, WithFeatureVersion(""))
	if err != nil {
		return nil, err
	}
	return Describe(ck, path, fi.Size()), nil
}

// Describe is ck's Info, read from the file path of size bytes.
func Describe(ck *Checkpoint, path string, size int64) *Info {
	h := ck.Header
	info := &Info{
		File: path, Bytes: size, FeatureVersion: h.FeatureVersion,
		Usable: h.FeatureVersion == metapolicy.FeatureVersion, RunsHere: layoutRuns(h.FeatureVersion),
		Step: h.Step, Seed: h.Seed, Policy: DescribeNet(ck.Policy), RNGBytes: len(ck.RNG),
		Metrics: h.Metrics, Train: h.Train, DataPos: h.DataPos,
		ConfidenceSource: ConfidenceSource(&h), Networks: ck.NetKeys,
	}
	if info.Metrics == nil {
		info.Metrics = map[string]float64{}
	}
	if ck.Reference != nil {
		r := DescribeNet(ck.Reference)
		info.Reference = &r
	}
	if ck.Adam != nil {
		info.Adam = &AdamInfo{Step: ck.Adam.Step, Config: ck.Adam.Config}
	}
	return info
}

// WriteText writes c as a two-column table, then the training
// configuration indented.
func (c *Info) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s (%d bytes)\n", c.File, c.Bytes)
	match := layoutNote(c.FeatureVersion)
	fmt.Fprintf(tw, "feature version\t%s (%s)\n", c.FeatureVersion, match)
	fmt.Fprintf(tw, "step\t%d\n", c.Step)
	fmt.Fprintf(tw, "seed\t%d\n", c.Seed)
	fmt.Fprintf(tw, "policy\t%s\n", c.Policy)
	writeNetworks(tw, c.Networks)
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
		for _, k := range slices.Sorted(maps.Keys(c.Metrics)) {
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

// writeNetworks writes the line naming a decoupled policy's networks.
func writeNetworks(w io.Writer, keys []string) {
	if keys == nil {
		return
	}
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	fmt.Fprintf(w, "networks\t%d, one per agent %s: %s; an agent none is named for gets the reference\n",
		len(keys), strings.SplitN(keys[0], ":", 2)[0], strings.Join(q, ", "))
}

// confidenceNote explains a ConfidenceSource value.
func confidenceNote(src string) string {
	switch src {
	case ConfidenceTextCritic:
		return src + " (a replay with critic=on: run it where the confidence is the text critic's, e.g. a server with its critic on)"
	case ConfidenceNone:
		return src + " (a replay without the critic: the confidence was always missing)"
	case ConfidenceGiven:
		return src + " (the simulator's confidence signal)"
	}
	return src + " (not recorded)"
}

// WriteText writes s as a two-column table, its metadata sorted by key,
// with a warning when this build cannot run the policy.
func (s *SafetensorsInfo) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "file\t%s (%d bytes, safetensors)\n", s.File, s.Bytes)
	fmt.Fprintf(tw, "policy\t%s\n", s.Policy)
	writeNetworks(tw, s.Networks)
	fmt.Fprintf(tw, "metadata\t\n")
	for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
		fmt.Fprintf(tw, "  %s\t%s\n", k, s.Metadata[k])
	}
	if v := s.Metadata[MetaFeatureVersion]; !layoutRuns(v) {
		fmt.Fprintf(tw, "warning\tfeature version %q: %s\n", v, layoutNote(v))
	}
	return tw.Flush()
}

// Keys of the safetensors metadata an export records beyond
// MetaActivation, MetaFeatureVersion and MetaConfidenceSource.
const (
	MetaStep    = "mpdf.step"    // the checkpoint's step
	MetaWeights = "mpdf.weights" // which network: "policy" or "reference"
)

// ExportLine is the line that says Export wrote out from the checkpoint
// at path (ck, its network net; the reference policy's if reference):
// which weights, at what step, of what network and feature version.
func ExportLine(path, out string, ck *Checkpoint, net *nn.MLP[float32], reference bool) string {
	which := "policy"
	if reference {
		which = "reference"
	}
	return fmt.Sprintf("wrote %s: %s weights of %s at step %d (%s, feature version %s)",
		out, which, path, ck.Header.Step, DescribeNet(net), ck.Header.FeatureVersion)
}

// Export writes the policy network of the checkpoint at path (every
// network and the fallback of a decoupled policy; its frozen KL reference
// policy when reference is set) to the safetensors file out,
// atomically, with its provenance in the metadata: activation, feature
// version, step, which network and the [ConfidenceSource]. It returns the
// checkpoint read and the network written.
func Export(path, out string, reference bool) (*Checkpoint, *nn.MLP[float32], error) {
	if err := outfile.NotAnInput(out, path); err != nil {
		return nil, nil, fmt.Errorf("checkpoints: %w", err)
	}
	ck, err := Load(path, WithFeatureVersion(""))
	if err != nil {
		return nil, nil, err
	}
	net, which := ck.Policy, "policy"
	if reference {
		if ck.Reference == nil {
			return nil, nil, fmt.Errorf("%s has no reference policy (it was saved without one)", path)
		}
		net, which = ck.Reference, "reference"
	}
	meta := map[string]string{
		MetaActivation:       net.Act.String(),
		MetaFeatureVersion:   ck.Header.FeatureVersion,
		MetaStep:             strconv.FormatInt(ck.Header.Step, 10),
		MetaWeights:          which,
		MetaConfidenceSource: ConfidenceSource(&ck.Header),
	}
	nets, err := ck.Networks()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if nets != nil && !reference { // a decoupled policy: every network and the fallback
		return ck, net, SaveSafetensorsNets(out, nets, meta)
	}
	if err := SaveSafetensors(out, net, meta); err != nil {
		return nil, nil, err
	}
	return ck, net, nil
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
		return fmt.Sprintf("a layout this build runs, not its default %s (a run starts from it with features %s)", metapolicy.FeatureVersion, v)
	}
	var known []string
	for _, f := range metapolicy.Featurizers() {
		known = append(known, f.Version)
	}
	return fmt.Sprintf("unknown to this build, which runs %s: the policy cannot run here", strings.Join(known, " and "))
}
