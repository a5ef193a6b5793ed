package run

import (
	"fmt"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// networks are the run's networks when its policy is decoupled and RL
// has made them; nil otherwise.
func (r *runner) networks() (*checkpoints.Networks, error) {
	if r.rl == nil || r.rl.NetKeys() == nil {
		return nil, nil
	}
	st := r.rl.Stepper()
	by, err := metapolicy.AgentPolicyOf(r.rl.NetKeys())
	if err != nil {
		return nil, err
	}
	return &checkpoints.Networks{By: by, Keys: r.rl.NetKeys(), Nets: st.Nets(), Fallback: st.Reference()}, nil
}

// restoreNets gives a resumed RL its checkpoint's networks, checking that
// the run asks for the agent policy that made them.
func restoreNets(rl *trainer.RL, ck *checkpoints.Checkpoint, want metapolicy.AgentPolicy) error {
	if ck.NetKeys == nil {
		return nil // one network so far: a decoupled run makes the others as it meets their agents
	}
	by, err := metapolicy.AgentPolicyOf(ck.NetKeys)
	if err != nil {
		return err
	}
	if by != want {
		return fmt.Errorf("the checkpoint holds networks by %s, the run asks for agent policy %s", by, want)
	}
	params := make([][]float32, len(ck.Nets))
	for k, m := range ck.Nets {
		params[k] = m.Params
	}
	return rl.RestoreNets(ck.NetKeys, params)
}

// PolicyOver is the trained policy named name read through layout fz:
// one network's, or a decoupled policy dispatching to each agent's.
func (r *Result) PolicyOver(name string, fz metapolicy.Featurizer) (metapolicy.Policy, error) {
	if r.Networks != nil {
		return r.Networks.Policy(name, fz)
	}
	if fz.Version == metapolicy.FeatureVersion {
		return metapolicy.NewMLPPolicy(name, r.Policy)
	}
	return metapolicy.NewFeaturizedPolicy(name, r.Policy, fz)
}
