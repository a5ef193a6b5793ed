package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// Policy is a learned policy ready to serve: its network, what is known
// about it, and a pool of kernel workspaces. It is immutable once built and
// safe for concurrent use; a reload builds a new one and swaps it in.
type Policy struct {
	info PolicyInfo
	net  *nn.MLP[float32]
	fz   metapolicy.Featurizer // the layout the network reads
	ws   sync.Pool             // *nn.Workspace[float32], one per concurrent forward pass
	dec  *decoupled            // a decoupled policy's networks (nets.go); nil for one network
}

// chunkRows is the most rows one forward pass takes (the workspace's
// maximum batch): a longer request runs in chunks of this size.
const chunkRows = 512

// LoadPolicy reads a policy file: a checkpoint (*.mpdf, written by mpdf
// train) or a safetensors export (*.safetensors), of any feature layout this
// build knows (metapolicy.FeaturizerFor): the one the file records is the
// one requests are featurized with.
func LoadPolicy(path string) (*Policy, error) {
	opt := checkpoints.WithFeatureVersion("") // any; FeaturizerFor checks it below
	info := PolicyInfo{Name: filepath.Base(path), Path: path}
	var net *nn.MLP[float32]
	var nets *checkpoints.Networks
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mpdf":
		ck, err := checkpoints.Load(path, opt)
		if err != nil {
			return nil, fmt.Errorf("serve: policy: %w", err)
		}
		h := ck.Header
		info.Format, info.Step, info.Seed, info.Metrics = "checkpoint", &h.Step, &h.Seed, h.Metrics
		info.ConfidenceSource = checkpoints.ConfidenceSource(&h)
		if len(h.Train) > 0 {
			sum := sha256.Sum256(h.Train)
			info.TrainConfigHash = hex.EncodeToString(sum[:])
		}
		net, info.FeatureVersion = ck.Policy, h.FeatureVersion
		if info.Verdict, err = runVerdict(path, h.Step); err != nil {
			info.Warnings = append(info.Warnings, "no verdict: "+err.Error())
		}
		if nets, err = ck.Networks(); err != nil {
			return nil, fmt.Errorf("serve: policy %s: %w", path, err)
		}
	case ".safetensors":
		m, ns, meta, err := checkpoints.LoadSafetensorsAny(path, opt)
		if err != nil {
			return nil, fmt.Errorf("serve: policy: %w", err)
		}
		if nets = ns; nets != nil {
			m = nets.Fallback
		}
		v, ok := meta[checkpoints.MetaFeatureVersion]
		if !ok {
			return nil, fmt.Errorf("serve: policy %s: metadata %s absent: the file does not say which features it reads", path, checkpoints.MetaFeatureVersion)
		}
		info.Format, info.FeatureVersion, net = "safetensors", v, m
		info.ConfidenceSource = checkpoints.ConfidenceSourceOfMeta(meta)
	default:
		return nil, fmt.Errorf("serve: policy %s: want a .mpdf checkpoint or a .safetensors export", path)
	}
	p, err := newPolicy(info, net)
	if err != nil || nets == nil {
		return p, err
	}
	// Every network has the fallback's shape (checkpoints checks it), so
	// the checks and the workspaces newPolicy made hold for all of them.
	p.dec = newDecoupled(nets)
	p.info.AgentPolicy, p.info.Networks = string(nets.By), nets.Keys
	return p, nil
}

// NewPolicy serves net, a network trained on metapolicy.FeatureVersion,
// under name: for a Go program that holds its policy in memory.
func NewPolicy(name string, net *nn.MLP[float32]) (*Policy, error) {
	return NewPolicyVersion(name, metapolicy.FeatureVersion, net)
}

// NewPolicyVersion serves net, a network trained on the feature layout
// version (a metapolicy.FeaturizerFor name), under name.
func NewPolicyVersion(name, version string, net *nn.MLP[float32]) (*Policy, error) {
	return newPolicy(PolicyInfo{Name: name, Format: "memory", FeatureVersion: version, ConfidenceSource: checkpoints.ConfidenceUnknown}, net.Clone())
}

func newPolicy(info PolicyInfo, net *nn.MLP[float32]) (*Policy, error) {
	fz, err := metapolicy.FeaturizerFor(info.FeatureVersion)
	if err != nil {
		return nil, fmt.Errorf("serve: policy %s: %w", info.Name, err)
	}
	info.FeatureVersion = fz.Version
	if fz.Team == nil { // Decide featurizes a deliberation at once
		return nil, fmt.Errorf("serve: policy %s: layout %s has no team featurizer in this build", info.Name, fz.Version)
	}
	if _, err := metapolicy.NewFeaturizedPolicy(info.Name, net, fz); err != nil {
		return nil, fmt.Errorf("serve: policy %s: %w", info.Name, err)
	}
	info.Sizes = append([]int(nil), net.Sizes...)
	info.Activation = net.Act.String()
	info.LoadedAt = time.Now().UTC().Format(time.RFC3339)
	if net.Attn > 0 { // nn's attention loops, no workspace (forward)
		info.AttnDim = net.Attn
		return &Policy{info: info, net: net, fz: fz}, nil
	}
	// A workspace now, so that a network the kernels refuse fails the load
	// rather than the first request.
	ws, err := nn.NewWorkspace[float32](net.Sizes, net.Act, chunkRows, 1)
	if err != nil {
		return nil, fmt.Errorf("serve: policy %s: %w", info.Name, err)
	}
	ws.Freeze(net) // a policy's network never changes: a reload is a new Policy
	p := &Policy{info: info, net: net, fz: fz}
	p.ws.New = func() any {
		w, err := nn.NewWorkspace[float32](net.Sizes, net.Act, chunkRows, 1)
		if err != nil {
			panic(err) // the same arguments succeeded above
		}
		w.Freeze(net)
		return w
	}
	p.ws.Put(ws)
	return p, nil
}

// Info describes the policy.
func (p *Policy) Info() PolicyInfo { return p.info }

// forward writes the logits of the feature rows x into logits, in chunks
// of at most chunkRows rows on a pooled workspace.
func (p *Policy) forward(logits, x []float32) {
	if p.net.Attn > 0 {
		nn.ForwardRef(logits, p.net, x) // Logits row by row, bit for bit
		return
	}
	ws := p.ws.Get().(*nn.Workspace[float32])
	defer p.ws.Put(ws)
	in, out := p.fz.Width, metapolicy.NumActions
	for r := 0; r*in < len(x); r += chunkRows {
		n := min(chunkRows, len(x)/in-r)
		ws.ForwardTo(logits[r*out:(r+n)*out], p.net, x[r*in:(r+n)*in])
	}
}

// fits refuses, as a request error naming the deliberation, a team the
// policy's layout cannot encode: mpdf-features/peers-v1 holds at most
// metapolicy.MaxPeersTeam agents.
func (p *Policy) fits(ds []delib, single bool) *fieldError {
	if p.fz.Version != metapolicy.FeatureVersionPeers {
		return nil
	}
	for i := range ds {
		if n := len(ds[i].agents); n > metapolicy.MaxPeersTeam {
			field := "agents"
			if !single {
				field = fmt.Sprintf("deliberations[%d].agents", i)
			}
			return ferr(field, "%d agents: the policy reads %s, which holds at most %d", n, metapolicy.FeatureVersionPeers, metapolicy.MaxPeersTeam)
		}
	}
	return nil
}
