package metapolicy

import (
	"fmt"
	"strconv"
)

// AgentPolicy says which network acts for an agent (design §4, decoupled
// agents): one shared by every agent, one per agent position (slot), or
// one per backbone model (model). Execution is decentralised whatever the
// choice: the network sees only the acting agent's own observation.
type AgentPolicy string

const (
	AgentShared AgentPolicy = "shared"
	AgentSlot   AgentPolicy = "slot"
	AgentModel  AgentPolicy = "model"
)

// ParseAgentPolicy parses "shared" (or ""), "slot" or "model".
func ParseAgentPolicy(s string) (AgentPolicy, error) {
	switch AgentPolicy(s) {
	case "", AgentShared:
		return AgentShared, nil
	case AgentSlot, AgentModel:
		return AgentPolicy(s), nil
	}
	return "", fmt.Errorf("agent policy %q: want shared, slot or model", s)
}

// Decoupled reports whether a gives agents networks of their own.
func (a AgentPolicy) Decoupled() bool { return a == AgentSlot || a == AgentModel }

// KeyOf names the network that acts for an agent in slot self whose
// backbone model is model ("" when unknown): "" under shared (the one
// network), "slot:I" under slot, "model:NAME" under model. Under model an
// agent of unknown model gets "", no network's key: the fallback decides
// for it, as for a model no network was trained for, in training (where
// its decisions train nothing), serve and the Python package alike.
func (a AgentPolicy) KeyOf(self int, model string) string {
	switch a {
	case AgentSlot:
		return "slot:" + strconv.Itoa(self)
	case AgentModel:
		if model == "" {
			return ""
		}
		return "model:" + model
	}
	return ""
}

// Key is KeyOf for the acting agent of obs; an observation whose Self is
// outside its agents has the model "" (Featurize refuses it anyway).
func (a AgentPolicy) Key(obs *Observation) string {
	model := ""
	if obs.Self >= 0 && obs.Self < len(obs.Agents) {
		model = obs.Agents[obs.Self].Model
	}
	return a.KeyOf(obs.Self, model)
}

// DecoupledPolicy is a learned policy with a network per agent slot or
// model: Probs dispatches on the observation's acting agent (AgentPolicy.Key)
// and asks that network, or Fallback for a key no network was trained for
// (a slot beyond the training teams, a model never seen). The fallback is
// the policy every network started from (design §4: the supervised policy,
// trained on every agent's labels).
type DecoupledPolicy struct {
	Label    string
	By       AgentPolicy
	Keys     []string // Keys[k] names Nets[k]
	Nets     []Policy
	Fallback Policy
	index    map[string]int
}

// NewDecoupledPolicy checks that keys and nets pair up, keys are distinct,
// by is decoupled and fallback is set. No keys at all is a policy that is
// its fallback for every agent (a run before its first iteration).
func NewDecoupledPolicy(name string, by AgentPolicy, keys []string, nets []Policy, fallback Policy) (*DecoupledPolicy, error) {
	switch {
	case !by.Decoupled():
		return nil, fmt.Errorf("metapolicy: decoupled policy by %q, want slot or model", by)
	case len(keys) != len(nets):
		return nil, fmt.Errorf("metapolicy: decoupled policy: %d keys for %d networks, want as many", len(keys), len(nets))
	case fallback == nil:
		return nil, fmt.Errorf("metapolicy: decoupled policy: no fallback network")
	}
	idx := make(map[string]int, len(keys))
	for k, key := range keys {
		if _, dup := idx[key]; dup {
			return nil, fmt.Errorf("metapolicy: decoupled policy: network %q twice", key)
		}
		idx[key] = k
	}
	return &DecoupledPolicy{Label: name, By: by, Keys: keys, Nets: nets, Fallback: fallback, index: idx}, nil
}

func (d *DecoupledPolicy) Name() string { return d.Label }

// For is the policy acting for obs's agent: its network, or the fallback.
func (d *DecoupledPolicy) For(obs *Observation) Policy {
	if k, ok := d.index[d.By.Key(obs)]; ok {
		return d.Nets[k]
	}
	return d.Fallback
}

func (d *DecoupledPolicy) Probs(p *[NumActions]float64, obs *Observation) error {
	return d.For(obs).Probs(p, obs)
}

// AgentPolicyOf tells from network keys (KeyOf's) which agent policy
// made them: slot or model, the same for every key.
func AgentPolicyOf(keys []string) (AgentPolicy, error) {
	var by AgentPolicy
	for _, k := range keys {
		var a AgentPolicy
		switch {
		case len(k) > 5 && k[:5] == "slot:":
			if i, err := strconv.Atoi(k[5:]); err != nil || i < 0 || strconv.Itoa(i) != k[5:] {
				return "", fmt.Errorf("network %q: want slot:INDEX", k)
			}
			a = AgentSlot
		case len(k) >= 6 && k[:6] == "model:":
			// "model:" itself (the unknown model's network of runs before
			// KeyOf gave such agents the fallback) still loads; KeyOf never
			// names it, so it decides for no one.
			a = AgentModel
		default:
			return "", fmt.Errorf("network %q: want slot:INDEX or model:NAME", k)
		}
		if by != "" && a != by {
			return "", fmt.Errorf("networks %q: both slot and model keys", keys)
		}
		by = a
	}
	if by == "" {
		return "", fmt.Errorf("no networks")
	}
	return by, nil
}

// ParseAgentPolicyField maps an agent policy's name to the config field
// that stores it (trainer.Config.AgentPolicy): "shared" to "" (the
// default, written as before the field existed), "slot" and "model" to
// themselves.
func ParseAgentPolicyField(s string) (string, error) {
	a, err := ParseAgentPolicy(s)
	if err != nil || !a.Decoupled() {
		return "", err
	}
	return string(a), nil
}

// AgentPolicyName is the name of a stored agent policy field: "shared"
// for "".
func AgentPolicyName(field string) string {
	if field == "" {
		return string(AgentShared)
	}
	return field
}
