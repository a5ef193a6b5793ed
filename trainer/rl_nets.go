package trainer

import (
	"fmt"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// NetKeys names the networks of a decoupled policy (Config.AgentPolicy
// slot or model) in the Stepper's order: "slot:I" or "model:NAME"
// (metapolicy.AgentPolicy.KeyOf). Nil while none has been trained, and
// for a shared policy.
func (r *RL) NetKeys() []string { return r.keys }

// netFor is the index of key's network, made (a copy of the reference,
// Stepper.AddNet) the first time key is seen; the first key takes the
// policy network itself, which starts as the reference too.
func (r *RL) netFor(key string) (int32, error) {
	if k, ok := r.index[key]; ok {
		return k, nil
	}
	if r.index == nil {
		r.index = map[string]int32{}
	}
	k := 0
	if len(r.keys) > 0 {
		var err error
		if k, err = r.stepper.AddNet(); err != nil {
			return 0, err
		}
	}
	r.keys = append(r.keys, key)
	r.index[key] = int32(k)
	return int32(k), nil
}

// RestoreNets gives a resumed run its networks back: keys in the order of
// NetKeys, params[k] the weights of network k (copied). Call it before
// restoring the optimiser state, whose moments cover every network.
func (r *RL) RestoreNets(keys []string, params [][]float32) error {
	if len(r.keys) > 0 {
		return fmt.Errorf("trainer: restore networks: the run already has %d", len(r.keys))
	}
	if len(keys) != len(params) {
		return fmt.Errorf("trainer: restore networks: %d keys for %d networks", len(keys), len(params))
	}
	for k, key := range keys {
		if _, dup := r.index[key]; dup {
			return fmt.Errorf("trainer: restore networks: network %q twice", key)
		}
		if _, err := r.netFor(key); err != nil {
			return err
		}
		dst := r.stepper.Nets()[k].Params
		if len(params[k]) != len(dst) {
			return fmt.Errorf("trainer: restore networks: network %q has %d parameters, want %d", key, len(params[k]), len(dst))
		}
		copy(dst, params[k])
	}
	return nil
}

// actingPolicy is the policy that plays an online iteration: the network
// read through layout fz, or, decoupled, each agent's network with the
// frozen reference for an agent whose network does not exist yet — the
// weights that network will start from.
func (r *RL) actingPolicy(fz metapolicy.Featurizer) (metapolicy.Policy, error) {
	by := r.cfg.Agents()
	if !by.Decoupled() {
		return policyOver(r.stepper.Policy(), fz)
	}
	return DecoupledOver("mpdf", by, r.keys, r.stepper.Nets(), r.stepper.Reference(), fz)
}

// DecoupledOver is a decoupled policy of networks nets named by keys, with
// fallback for an agent none is named for, each read through layout fz.
func DecoupledOver(name string, by metapolicy.AgentPolicy, keys []string, nets []*nn.MLP[float32], fallback *nn.MLP[float32], fz metapolicy.Featurizer) (*metapolicy.DecoupledPolicy, error) {
	ps := make([]metapolicy.Policy, len(keys))
	for k := range keys {
		p, err := policyOver(nets[k], fz)
		if err != nil {
			return nil, err
		}
		ps[k] = p
	}
	fb, err := policyOver(fallback, fz)
	if err != nil {
		return nil, err
	}
	return metapolicy.NewDecoupledPolicy(name, by, keys, ps, fb)
}

// keepTrainable keeps those of ep's decisions ds (data.Decisions' order:
// round by round, agent by agent) that an agent's network took, keyed by
// its slot or model as it acted (its turn of the round before), and
// appends each kept one's network index to nets. Under model, an agent
// that names no backbone model has no network: the fallback played it (as
// serve decides it), and the fallback does not train, so its decisions
// are dropped; dropped counts them.
func (r *RL) keepTrainable(ds []data.Decision, nets []int32, ep *data.Episode) (kept []data.Decision, _ []int32, dropped int, err error) {
	by := r.cfg.Agents()
	kept, d := ds[:0], 0
	for t := 1; t < len(ep.Rounds); t++ {
		prev := ep.Rounds[t-1].Turns
		for i := range ep.Rounds[t].Turns {
			if d >= len(ds) {
				return nil, nil, 0, fmt.Errorf("trainer: episode %q: %d decisions for more turns", ep.ID, len(ds))
			}
			if key := by.KeyOf(i, prev[i].Model); key != "" {
				k, err := r.netFor(key)
				if err != nil {
					return nil, nil, 0, err
				}
				nets = append(nets, k)
				kept = append(kept, ds[d])
			}
			d++
		}
	}
	if d != len(ds) {
		return nil, nil, 0, fmt.Errorf("trainer: episode %q: %d decisions for %d turns", ep.ID, len(ds), d)
	}
	return kept, nets, len(ds) - len(kept), nil
}
