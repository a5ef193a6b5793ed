package metapolicy

import "testing"

// only is a policy that puts all its mass on one action.
type only Action

func (f only) Name() string { return "fixed" }
func (f only) Probs(p *[NumActions]float64, _ *Observation) error {
	*p = [NumActions]float64{}
	p[f] = 1
	return nil
}

func TestDecoupledDispatch(t *testing.T) {
	obs := func(self int, models ...string) *Observation {
		o := &Observation{Self: self, Round: 1, Rounds: 1}
		for _, m := range models {
			o.Agents = append(o.Agents, AgentState{Model: m, Confidence: Missing})
		}
		return o
	}
	bySlot, err := NewDecoupledPolicy("p", AgentSlot, []string{"slot:0", "slot:1"}, []Policy{only(Refine), only(Concede)}, only(Persist))
	if err != nil {
		t.Fatal(err)
	}
	byModel, err := NewDecoupledPolicy("p", AgentModel, []string{"model:b", "model:"}, []Policy{only(Refine), only(Concede)}, only(Persist))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *DecoupledPolicy
		obs  *Observation
		want Action
	}{
		{bySlot, obs(0, "a", "b", "c"), Refine},
		{bySlot, obs(1, "a", "b", "c"), Concede},
		{bySlot, obs(2, "a", "b", "c"), Persist}, // unseen slot: the fallback
		{byModel, obs(0, "a", "b", ""), Persist}, // unseen model
		{byModel, obs(1, "a", "b", ""), Refine},
		// No model: the fallback, even beside a "model:" network (an old
		// run's network of the unknown model, which now decides for no one).
		{byModel, obs(2, "a", "b", ""), Persist},
	} {
		var p [NumActions]float64
		if err := c.p.Probs(&p, c.obs); err != nil {
			t.Fatal(err)
		}
		if p[c.want] != 1 {
			t.Errorf("%s self %d: probs %v, want all on %v", c.p.By, c.obs.Self, p, c.want)
		}
	}
	if k := AgentModel.KeyOf(0, ""); k != "" {
		t.Errorf("an agent of no model has the network key %q, want none", k)
	}
	if _, err := NewDecoupledPolicy("p", AgentShared, []string{"x"}, []Policy{only(0)}, only(0)); err == nil {
		t.Error("a shared decoupled policy was accepted")
	}
	if _, err := NewDecoupledPolicy("p", AgentSlot, []string{"x", "x"}, []Policy{only(0), only(0)}, only(0)); err == nil {
		t.Error("a repeated key was accepted")
	}
	if _, err := ParseAgentPolicy("team"); err == nil {
		t.Error("agent policy team was accepted")
	}
}

// The stored field of an agent policy reads back as its name; shared is
// stored as "", so shared configs keep their bytes.
func TestAgentPolicyField(t *testing.T) {
	for name, field := range map[string]string{"shared": "", "": "", "slot": "slot", "model": "model"} {
		got, err := ParseAgentPolicyField(name)
		if err != nil || got != field {
			t.Errorf("%q: %q, %v; want %q", name, got, err, field)
		}
		if name != "" && AgentPolicyName(got) != name {
			t.Errorf("%q: name of its field %q is %q", name, got, AgentPolicyName(got))
		}
	}
	if _, err := ParseAgentPolicyField("team"); err == nil {
		t.Error("team: no error")
	}
}
