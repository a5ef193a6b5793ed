package transcript

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/answer"
)

// Meta is what a transcript's file name tells about it, read once by
// ParseName (and overridden by Options) for the whole file. Zero values
// mean the name does not say.
type Meta struct {
	// File is the base name without a compression suffix: the name
	// questions and reports are filed under.
	File   string
	Task   answer.Kind
	Model  string
	Agents int
	// Generations is the LLM-Debate "rounds" count of the name: answers per
	// agent, round 0 included (deliberation rounds = Generations − 1).
	Generations int
}

var (
	agentsRe = regexp.MustCompile(`^agents(\d+)$`)
	roundsRe = regexp.MustCompile(`^rounds(\d+)$`)
)

// DyLANModel is the model of DyLAN's logs (SALT-NLP/DyLAN exp/MATH/CoT,
// the "dylan_" files of the shared corpus): GPT-3.5-turbo, as DyLAN's
// paper and the corpus README say; their file names do not. Naming it
// keeps them with the other GPT-3.5 transcripts in a leave-one-model-out
// study instead of in a fold of their own called "unknown".
const DyLANModel = "gpt-3.5-turbo"

// ParseName reads a transcript file name. Two conventions are known:
//
//	gsm_3_2.json                                  Du et al.: task_agents_rounds
//	gsm_Qwen3-14B_persona_a+b+c_agents3_rounds3.json   task_model_..._agentsN_roundsM
//
// The task is the prefix before the first "_" (gsm, gsm8k, mmlu,
// arithmetic, math), after an optional source prefix "agora_" or "dylan_";
// an unknown prefix leaves Task empty. The model is the second field unless
// it is a count or a keyword. DyLAN's names ("dylan_math_SUBJECT_...") name
// none; their model is DyLANModel, the one model of DyLAN's published logs.
// A compression suffix (".gz", ".zst") is ignored.
func ParseName(path string) Meta {
	m := Meta{File: baseName(path)}
	base := strings.TrimSuffix(m.File, filepath.Ext(m.File))
	parts := strings.Split(base, "_")
	src := ""
	if len(parts) > 1 && (parts[0] == "agora" || parts[0] == "dylan") {
		src, parts = parts[0], parts[1:]
	}
	if t, err := answer.ParseKind(parts[0]); err == nil {
		m.Task = t
	}
	if len(parts) == 3 {
		a, errA := strconv.Atoi(parts[1])
		g, errG := strconv.Atoi(parts[2])
		if errA == nil && errG == nil {
			m.Agents, m.Generations = a, g
			return m
		}
	}
	if src == "dylan" {
		m.Model = DyLANModel
		return m
	}
	for i, p := range parts[1:] {
		if s := agentsRe.FindStringSubmatch(p); s != nil {
			m.Agents, _ = strconv.Atoi(s[1])
			continue
		}
		if s := roundsRe.FindStringSubmatch(p); s != nil {
			m.Generations, _ = strconv.Atoi(s[1])
			continue
		}
		if i == 0 && p != "persona" {
			if _, err := strconv.Atoi(p); err != nil {
				m.Model = p
			}
		}
	}
	return m
}

// ModelOf is the model ParseName reads from the file name, or the name
// itself when it reads none: a row label for per-model tables.
func ModelOf(file string) string {
	if m := ParseName(file).Model; m != "" {
		return m
	}
	return file
}
