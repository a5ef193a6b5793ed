package run

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// A run with a network per agent slot trains one per agent of the
// simulator's team, each moved its own way; its checkpoints and
// policy.safetensors hold them all and load as a policy dispatching on the
// slot; a run stopped after two iterations and resumed trains the same
// networks as one that never stopped; Gorgonia trains it too.
func TestRunAgentPolicySlot(t *testing.T) {
	for _, backend := range []string{"kernel", "gorgonia"} {
		t.Run(backend, func(t *testing.T) {
			cfg := simConfig(t)
			cfg.Train.Backend = backend
			cfg.Train.AgentPolicy = "slot"
			cfg.Train.RL.Iterations = 3
			cfg.Dir = filepath.Join(t.TempDir(), "straight")
			res, err := Train(context.Background(), cfg, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			n := res.Networks
			if n == nil || !slices.Equal(n.Keys, []string{"slot:0", "slot:1", "slot:2"}) || n.By != metapolicy.AgentSlot {
				t.Fatalf("networks %+v, want slot:0..2", n)
			}
			for i := range n.Nets {
				if slices.Equal(n.Nets[i].Params, n.Fallback.Params) {
					t.Errorf("network %s did not move from the reference", n.Keys[i])
				}
				for j := range i {
					if slices.Equal(n.Nets[i].Params, n.Nets[j].Params) {
						t.Errorf("networks %s and %s are equal", n.Keys[i], n.Keys[j])
					}
				}
			}
			// The export and the checkpoint are one policy, dispatching on the slot.
			exp, err := checkpoints.LoadPolicy(filepath.Join(cfg.Dir, WeightsName), "x")
			if err != nil {
				t.Fatal(err)
			}
			ck, err := checkpoints.LoadPolicy(filepath.Join(cfg.Dir, checkpoints.BestName), "x")
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := exp.(*metapolicy.DecoupledPolicy); !ok {
				t.Fatalf("the export loads as %T, want a decoupled policy", exp)
			}
			if _, _, err := checkpoints.LoadNetwork(filepath.Join(cfg.Dir, WeightsName)); err == nil {
				t.Error("LoadNetwork read one network from a file of several")
			}
			seen := map[[3]float64]bool{}
			for self := range 4 { // slot 3: no network, the fallback
				obs := metapolicy.Observation{Self: self, Round: 1, Rounds: 3, Agents: make([]metapolicy.AgentState, 4)}
				for i := range obs.Agents {
					obs.Agents[i] = metapolicy.AgentState{Answer: string(rune('a' + i%2)), Confidence: 0.5, Profile: metapolicy.Profile{SelfConfidence: metapolicy.Missing}}
				}
				var a, b [3]float64
				if err := exp.Probs(&a, &obs); err != nil {
					t.Fatal(err)
				}
				if err := ck.Probs(&b, &obs); err != nil {
					t.Fatal(err)
				}
				if a != b {
					t.Errorf("slot %d: export %v, checkpoint %v", self, a, b)
				}
				seen[a] = true
			}
			if len(seen) < 3 {
				t.Errorf("%d distinct distributions over 4 slots, want the networks to differ", len(seen))
			}

			// Two iterations, then a resume to three: the same networks.
			cfg.Dir = filepath.Join(t.TempDir(), "split")
			cfg.Train.RL.Iterations = 2
			if _, err := Train(context.Background(), cfg, Hooks{}); err != nil {
				t.Fatal(err)
			}
			rs, err := Latest(cfg.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Checkpoint.NetKeys) != 3 {
				t.Fatalf("checkpoint networks %q", rs.Checkpoint.NetKeys)
			}
			cfg.Resume, cfg.Train.RL.Iterations = rs, 3
			again, err := Train(context.Background(), cfg, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range again.Networks.Nets {
				if !slices.Equal(m.Params, n.Nets[i].Params) {
					t.Errorf("network %s: resumed differs from straight", n.Keys[i])
				}
			}
			// Resuming as a shared run is refused.
			cfg.Train.AgentPolicy = ""
			if rs, err = Latest(cfg.Dir); err != nil {
				t.Fatal(err)
			}
			cfg.Resume, cfg.Train.RL.Iterations = rs, 4
			if _, err := Train(context.Background(), cfg, Hooks{}); err == nil {
				t.Error("a slot run resumed as shared")
			}
		})
	}
}

// On the replay of LLM-Agora's mixed team, a network per model trains one
// network per backbone model, keyed by the model the transcript names.
func TestRunAgentPolicyModel(t *testing.T) {
	paths := testenv.Debates(t, "more/variants/agora_gsm_*.json")
	sp, err := replay.ParseSpec("replay:" + paths[0])
	if err != nil {
		t.Fatal(err)
	}
	e, err := open.Replay(sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Train: tinyConfig(), Env: e, EnvName: "replay:" + paths[0]}
	cfg.Train.AgentPolicy = "model"
	cfg.Train.RL.Iterations = 1
	res, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(slices.Values(res.Networks.Keys))
	want := []string{"model:llama", "model:orca", "model:wizardlm"} // the keys of agent_response
	if !slices.Equal(keys, want) {
		t.Errorf("networks %q, want %q", keys, want)
	}
}

// The simulator names no agent's model: under agent policy model every
// agent is the fallback's, as serve would decide it, so the run trains no
// network and its policy is the supervised one, and it says how many
// decisions went untrained.
func TestRunAgentPolicyModelWithoutModels(t *testing.T) {
	sft := simConfig(t)
	sft.Train.RL.Iterations = 0
	want, err := Train(context.Background(), sft, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := simConfig(t)
	cfg.Train.AgentPolicy = "model"
	res, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Networks != nil || res.Untrained == 0 || res.Iterations != cfg.Train.RL.Iterations {
		t.Errorf("networks %+v, %d untrained decisions, %d iterations; want none, > 0, %d",
			res.Networks, res.Untrained, res.Iterations, cfg.Train.RL.Iterations)
	}
	if !slices.Equal(res.Policy.Params, want.Policy.Params) {
		t.Error("the policy moved from the supervised one, with no agent naming a model")
	}
}

// Offline rows do not say which agent took them: a decoupled offline run
// is refused before anything is written.
func TestRunAgentPolicyOfflineRefused(t *testing.T) {
	cfg := tinyConfig()
	cfg.AgentPolicy = "slot"
	if _, err := Train(context.Background(), Config{Train: cfg, Data: &chunkedSource{memSource: memRows()}}, Hooks{}); err == nil {
		t.Error("an offline slot run was accepted")
	}
}
