package view

import "testing"

// TestOrigin: the model and kind the filters show, read from an episode's
// source and task, for each source mpdf writes.
func TestOrigin(t *testing.T) {
	for _, c := range []struct{ source, task, model, kind string }{
		{"simulator", "sim-17", "simulator", "sim"},
		{"openai:qwen2.5-7b", "gsm8k:0a1b2c3d4e5f", "qwen2.5-7b", "gsm8k"},
		{"replay:gsm_Qwen3-14B_persona_enigma+zen+deep-sea_agents3_rounds3.json", "gsm8k:0a1b", "Qwen3-14B", "gsm8k"},
		{"llm-debate:mmlu_Llama-3.1-8B-Instruct_agents3_rounds2.json", "mmlu:0a1b", "Llama-3.1-8B-Instruct", "mmlu"},
		{"llm-agora:agora_gsm_a_agents3_rounds3.json models=llama,wizardlm,orca", "gsm8k:0a1b", "llama+wizardlm+orca", "gsm8k"},
		{"replay:dylan_math_algebra_1_248_4_3.json", "math:0a1b", "gpt-3.5-turbo", "math"},
		// An older replay named all its files: no model, the kind from the task.
		{"replay:gsm_a_agents3.json,mmlu_b_agents3.json", "mmlu:0a1b", "", "mmlu"},
		{"somewhere", "t1", "", ""},
	} {
		if m, k := origin(c.source, c.task); m != c.model || k != c.kind {
			t.Errorf("origin(%q, %q) = %q, %q; want %q, %q", c.source, c.task, m, k, c.model, c.kind)
		}
	}
}
