package checkpoints

// Several networks (design §4, decoupled agents: trainer.Config's
// agent_policy slot or model). A checkpoint holds them as
// Checkpoint.NetKeys and Nets (Policy is Nets[0], the reference the
// fallback every network started from); a safetensors export holds them as
// "nets.{k}.layers.{i}.weight|bias" and the fallback as
// "fallback.layers.{i}.weight|bias", with the metadata MetaAgentPolicy and
// MetaNetworks (the keys, a JSON array, network k k-th). Tensor names use
// the index, not the key: a model's name may hold any character.

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// Metadata keys of an export of several networks.
const (
	MetaAgentPolicy = "mpdf.agent_policy" // "slot" or "model"
	MetaNetworks    = "mpdf.networks"     // JSON array of the keys, network k's k-th
)

// Networks are a decoupled policy's networks: Keys[k]
// (metapolicy.AgentPolicy.KeyOf) names Nets[k]; Fallback acts for an agent
// no key names.
type Networks struct {
	By       metapolicy.AgentPolicy
	Keys     []string
	Nets     []*nn.MLP[float32]
	Fallback *nn.MLP[float32]
}

// Networks are c's networks when it holds several (nil, nil for a shared
// policy's checkpoint): its nets, with the reference as the fallback.
func (c *Checkpoint) Networks() (*Networks, error) {
	if c.NetKeys == nil {
		return nil, nil
	}
	by, err := metapolicy.AgentPolicyOf(c.NetKeys)
	if err != nil {
		return nil, err
	}
	if c.Reference == nil {
		return nil, fmt.Errorf("checkpoints: %d networks without a reference to fall back on", len(c.Nets))
	}
	return &Networks{By: by, Keys: c.NetKeys, Nets: c.Nets, Fallback: c.Reference}, nil
}

// Policy is n read through layout fz as one metapolicy.Policy named name.
func (n *Networks) Policy(name string, fz metapolicy.Featurizer) (*metapolicy.DecoupledPolicy, error) {
	over := func(m *nn.MLP[float32]) (metapolicy.Policy, error) {
		if fz.Version == metapolicy.FeatureVersion {
			return metapolicy.NewMLPPolicy(name, m)
		}
		return metapolicy.NewFeaturizedPolicy(name, m, fz)
	}
	ps := make([]metapolicy.Policy, len(n.Nets))
	for k, m := range n.Nets {
		p, err := over(m)
		if err != nil {
			return nil, err
		}
		ps[k] = p
	}
	fb, err := over(n.Fallback)
	if err != nil {
		return nil, err
	}
	return metapolicy.NewDecoupledPolicy(name, n.By, n.Keys, ps, fb)
}

// groups are the safetensors prefixes of n's networks, fallback last.
func (n *Networks) groups() ([]string, []*nn.MLP[float32]) {
	gs := make([]string, 0, len(n.Nets)+1)
	for k := range n.Nets {
		gs = append(gs, "nets."+strconv.Itoa(k))
	}
	return append(gs, "fallback"), append(append([]*nn.MLP[float32](nil), n.Nets...), n.Fallback)
}

func (n *Networks) meta(meta map[string]string) (map[string]string, error) {
	keys, err := json.Marshal(n.Keys)
	if err != nil {
		return nil, err
	}
	md := map[string]string{}
	for k, v := range meta {
		md[k] = v
	}
	md[MetaAgentPolicy], md[MetaNetworks] = string(n.By), string(keys)
	return md, nil
}

// ExportSafetensorsNets writes n to w as one safetensors file (see the
// file comment); meta as ExportSafetensors's.
func ExportSafetensorsNets(w io.Writer, n *Networks, meta map[string]string) error {
	b, err := n.safetensors(meta)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("checkpoints: safetensors: write: %w", err)
	}
	return nil
}

// SaveSafetensorsNets writes the export of n to path atomically.
func SaveSafetensorsNets(path string, n *Networks, meta map[string]string) error {
	b, err := n.safetensors(meta)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFileAtomic(path, bytesWriter(b))
}

// safetensors is the safetensors file of n with meta's entries.
func (n *Networks) safetensors(meta map[string]string) ([]byte, error) {
	md, err := n.meta(meta)
	if err != nil {
		return nil, err
	}
	gs, nets := n.groups()
	return marshalGroups(gs, nets, md)
}

// oneNetwork is the network of a plain export, and an error naming what a
// file of several holds.
func oneNetwork(nets map[string]*nn.MLP[float32], meta map[string]string) (*nn.MLP[float32], error) {
	if m, ok := nets[""]; ok && len(nets) == 1 {
		return m, nil
	}
	if _, ok := nets[""]; ok {
		return nil, errf(ErrCorrupt, "header: layers.* next to the tensors of several networks")
	}
	return nil, errf(ErrCorrupt, "the file holds %d networks of a decoupled policy (agent policy %q, plus a fallback), not one", len(nets)-1, meta[MetaAgentPolicy])
}

// networksOf checks the networks of a file of several against its
// metadata; a plain file gives nil.
func networksOf(nets map[string]*nn.MLP[float32], meta map[string]string) (*Networks, error) {
	if _, ok := nets[""]; ok {
		if len(nets) > 1 {
			return nil, errf(ErrCorrupt, "header: layers.* next to the tensors of several networks")
		}
		return nil, nil
	}
	var keys []string
	if err := json.Unmarshal([]byte(meta[MetaNetworks]), &keys); err != nil {
		return nil, errf(ErrCorrupt, "header: %s.%s %q: want a JSON array of the networks' keys", metadataKey, MetaNetworks, meta[MetaNetworks])
	}
	by, err := metapolicy.AgentPolicyOf(keys)
	if err != nil {
		return nil, errf(ErrCorrupt, "header: %s.%s: %v", metadataKey, MetaNetworks, err)
	}
	if a := meta[MetaAgentPolicy]; a != string(by) {
		return nil, errf(ErrCorrupt, "header: %s.%s %q, the keys are %s's", metadataKey, MetaAgentPolicy, a, by)
	}
	n := &Networks{By: by, Keys: keys, Fallback: nets["fallback"]}
	if n.Fallback == nil {
		return nil, errf(ErrCorrupt, "header: fallback.layers.* missing")
	}
	seen := map[string]bool{}
	for k, key := range keys {
		if seen[key] {
			return nil, errf(ErrCorrupt, "header: %s.%s: network %q twice", metadataKey, MetaNetworks, key)
		}
		seen[key] = true
		m := nets["nets."+strconv.Itoa(k)]
		if m == nil {
			return nil, errf(ErrCorrupt, "header: nets.%d.layers.* missing (%d networks)", k, len(keys))
		}
		n.Nets = append(n.Nets, m)
	}
	if len(nets) != len(keys)+1 {
		return nil, errf(ErrCorrupt, "header: %d networks, %s.%s names %d", len(nets)-1, metadataKey, MetaNetworks, len(keys))
	}
	return n, nil
}

// LoadSafetensorsAny reads an export of one network (m) or of several
// (nets), whichever the file holds; checks and options as LoadSafetensors.
func LoadSafetensorsAny(path string, opts ...Option) (m *nn.MLP[float32], nets *Networks, meta map[string]string, err error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("checkpoints: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("checkpoints: %w", err)
	}
	groups, meta, err := readSafetensors(f, st.Size(), opts)
	if err == nil {
		nets, err = networksOf(groups, meta)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("checkpoints: %s: %w", path, err)
	}
	if nets == nil {
		m = groups[""]
	}
	return m, nets, meta, nil
}
