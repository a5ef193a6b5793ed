package sim

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"

	"github.com/mpdf/mpdf/data"
)

// Params are the coefficients of the simulator's model of how agents
// answer, revise and spend tokens (package documentation, "The
// simulator"). Calibrate fits the ones marked "fitted" to real debate
// transcripts; the others have no counterpart in the transcripts (they
// hold no confidence score) and keep hand-set values. DefaultParams is the
// fit to the shared corpus, embedded in the binary.
type Params struct {
	// Source says where the values come from (a calibration's command and
	// corpus, or "hand-set").
	Source string `json:"source"`

	// Round 0 (fitted): agent i is right with probability
	// σ(SolveSlope·(skill_i − d)), the task difficulty d drawn as
	// DifficultyMean + DifficultySpread·N(0,1), every skill Skill (unless
	// Config.Skills says otherwise). SolveSlope is fixed at 6: only the
	// ratio of spread to slope is identified.
	SolveSlope       float64 `json:"solve_slope"`
	Skill            float64 `json:"skill"`
	DifficultyMean   float64 `json:"difficulty_mean"`
	DifficultySpread float64 `json:"difficulty_spread"`
	// Unreadable is the chance that a round-0 answer cannot be read,
	// RevisionUnreadable that a revision cannot (fitted).
	// Both are means over tasks: a task's own rates are the means times
	// B/Unreadable, B ~ Beta with mean Unreadable and intra-team
	// correlation UnreadableCorrelation (fitted), since models that
	// cannot keep the answer format fail on the same questions.
	Unreadable            float64 `json:"unreadable"`
	RevisionUnreadable    float64 `json:"revision_unreadable"`
	UnreadableCorrelation float64 `json:"unreadable_correlation"`
	// Attractor is the share of wrong answers that go to a task's first
	// wrong answer (fitted from how often two wrong agents agree);
	// AttractorJitter spreads it uniformly per task by ± half that much.
	Attractor       float64 `json:"attractor"`
	AttractorJitter float64 `json:"attractor_jitter"`

	// Refine of a wrong or unreadable answer (fitted): fixed with
	// probability σ(FixBase + FixSkill·(skill − d) + FixGold·g + FixSame·s
	// + FixAllGold·[g = 1]), g the share of seen peers holding the gold, s
	// the share holding the agent's own wrong answer ([g = 1]: every seen
	// peer on the gold, a jump a logistic in g alone misses). Not fixed: it follows the peers' most
	// common wrong answer with probability Conform·(their share), else
	// keeps its answer with probability KeepWrong, else draws a wrong one.
	FixBase    float64 `json:"fix_base"`
	FixSkill   float64 `json:"fix_skill"`
	FixGold    float64 `json:"fix_gold"`
	FixSame    float64 `json:"fix_same"`
	FixAllGold float64 `json:"fix_all_gold"`
	Conform    float64 `json:"conform"`
	KeepWrong  float64 `json:"keep_wrong"`
	// Refine of a right answer (fitted): broken with probability
	// σ(BreakBase + BreakWrong·w + BreakAllWrong·[w = 1] + BreakGap·(d −
	// skill)), w the share of seen peers on their most common wrong
	// answer; a broken answer joins that answer with probability BreakTo.
	BreakBase     float64 `json:"break_base"`
	BreakWrong    float64 `json:"break_wrong"`
	BreakAllWrong float64 `json:"break_all_wrong"`
	BreakGap      float64 `json:"break_gap"`
	BreakTo       float64 `json:"break_to"`

	// The simulator's confidence signal, the turn's introspective
	// confidence (hand-set: the transcripts hold none): σ(z), z =
	// bias_i + ConfRight | ConfAttractor | ConfOther − ConfDifficulty·(d −
	// DifficultyMean) + ConfConsensus·(share of seen peers agreeing) +
	// ConfNoise·N(0,1); bias_i = Overconfidence·(strongest skill − skill_i).
	ConfRight      float64 `json:"conf_right"`
	ConfAttractor  float64 `json:"conf_attractor"`
	ConfOther      float64 `json:"conf_other"`
	ConfDifficulty float64 `json:"conf_difficulty"`
	ConfConsensus  float64 `json:"conf_consensus"`
	ConfNoise      float64 `json:"conf_noise"`
	Overconfidence float64 `json:"overconfidence"`
	// Stated self-confidence: present with probability StatedRate
	// (fitted), then σ(z + StatedShift + StatedNoise·N(0,1)) in steps of
	// 0.05 (hand-set).
	StatedRate  float64 `json:"stated_rate"`
	StatedShift float64 `json:"stated_shift"`
	StatedNoise float64 `json:"stated_noise"`

	// Profile (fitted): an answer's completion tokens are
	// exp(N(mean, sd)) of the log, for right and for wrong answers, in
	// round 0 (Tokens*) and in revisions (RevisionTokens*), the log's mean
	// set so that the plain mean is the recorded one; its reasoning steps
	// and hedges are Poisson with the mean of right or of wrong answers
	// times exp(Spread·N(0,1) − Spread²/2), one normal draw shared with
	// the completion's log, so that long answers have more steps (the
	// spreads matched to the recorded variances).
	TokensRight         LogNormal `json:"tokens_right"`
	TokensWrong         LogNormal `json:"tokens_wrong"`
	RevisionTokensRight LogNormal `json:"revision_tokens_right"`
	RevisionTokensWrong LogNormal `json:"revision_tokens_wrong"`
	StepsRight          float64   `json:"steps_right"`
	StepsWrong          float64   `json:"steps_wrong"`
	StepsSpread         float64   `json:"steps_spread"`
	HedgesRight         float64   `json:"hedges_right"`
	HedgesWrong         float64   `json:"hedges_wrong"`
	HedgesSpread        float64   `json:"hedges_spread"`
	// Prompts (fitted): a task's question prompt is exp(N(mean, sd))
	// tokens; a refine prompt is PromptBase + PromptQuestion·question +
	// PromptOwn·(own previous completion) + PromptPeers·(seen peers'
	// previous completions, summed), the least-squares fit to the
	// recorded refine prompts.
	Question       LogNormal `json:"question"`
	PromptBase     float64   `json:"prompt_base"`
	PromptQuestion float64   `json:"prompt_question"`
	PromptOwn      float64   `json:"prompt_own"`
	PromptPeers    float64   `json:"prompt_peers"`
}

// LogNormal is a distribution whose logarithm is normal.
type LogNormal struct {
	LogMean float64 `json:"log_mean"`
	LogSD   float64 `json:"log_sd"`
}

// calibrated is the fit of Calibrate to the shared corpus, produced by the
// command in its Source field (see README, "The simulator").
//
//go:embed calibrated.json
var calibrated []byte

// DefaultParams returns the embedded calibrated parameters, the
// simulator's default.
func DefaultParams() Params {
	p, err := ParseParams(calibrated)
	if err != nil {
		panic("sim: embedded calibrated.json: " + err.Error())
	}
	return p
}

// ParseParams reads parameters written by Params.MarshalIndent (or
// by hand): every field must be present, known and valid.
func ParseParams(b []byte) (Params, error) {
	b = data.TrimBOM(b) // a hand-edited file may start with one
	// The strict rules of every JSON input: a field twice or in another
	// case would be read with the last value winning.
	if err := data.CheckStrict(b, &Params{}); err != nil {
		return Params{}, fmt.Errorf("sim: simulator parameters: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Params{}, fmt.Errorf("sim: simulator parameters: %w", err)
	}
	t := reflect.TypeFor[Params]()
	for i := range t.NumField() {
		name, _, _ := bytes.Cut([]byte(t.Field(i).Tag.Get("json")), []byte(","))
		if _, ok := raw[string(name)]; !ok {
			return Params{}, fmt.Errorf("sim: simulator parameters: field %q missing", name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Params
	if err := dec.Decode(&p); err != nil {
		return Params{}, fmt.Errorf("sim: simulator parameters: %w", err)
	}
	return p, p.Check()
}

// MarshalIndent writes the parameters as indented JSON, fields in
// declaration order, ending with a newline.
func (p Params) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	return append(b, '\n'), err
}

// Check reports a parameter outside its domain.
func (p *Params) Check() error {
	prob := map[string]float64{
		"unreadable": p.Unreadable, "revision_unreadable": p.RevisionUnreadable,
		"unreadable_correlation": p.UnreadableCorrelation, "attractor": p.Attractor, "conform": p.Conform,
		"keep_wrong": p.KeepWrong, "break_to": p.BreakTo, "stated_rate": p.StatedRate,
	}
	for name, v := range prob {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("sim: simulator parameters: %s %v outside [0,1]", name, v)
		}
	}
	nonNeg := map[string]float64{
		"solve_slope": p.SolveSlope, "difficulty_spread": p.DifficultySpread, "attractor_jitter": p.AttractorJitter,
		"conf_noise": p.ConfNoise, "stated_noise": p.StatedNoise, "steps_right": p.StepsRight,
		"steps_wrong": p.StepsWrong, "hedges_right": p.HedgesRight, "hedges_wrong": p.HedgesWrong,
		"steps_spread": p.StepsSpread, "hedges_spread": p.HedgesSpread,
		"tokens_right.log_sd": p.TokensRight.LogSD, "tokens_wrong.log_sd": p.TokensWrong.LogSD,
		"revision_tokens_right.log_sd": p.RevisionTokensRight.LogSD, "revision_tokens_wrong.log_sd": p.RevisionTokensWrong.LogSD,
		"question.log_sd": p.Question.LogSD,
	}
	for name, v := range nonNeg {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("sim: simulator parameters: %s %v, want a finite value ≥ 0", name, v)
		}
	}
	v := reflect.ValueOf(*p)
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Float64:
			if x := f.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("sim: simulator parameters: %s is %v", v.Type().Field(i).Tag.Get("json"), x)
			}
		case reflect.Struct:
			ln := f.Interface().(LogNormal)
			if math.IsNaN(ln.LogMean) || math.IsInf(ln.LogMean, 0) || ln.LogMean > 20 {
				return fmt.Errorf("sim: simulator parameters: %s.log_mean %v", v.Type().Field(i).Tag.Get("json"), ln.LogMean)
			}
		}
	}
	return nil
}

// draw samples the distribution.
func (l LogNormal) draw(z float64) float64 { return math.Exp(l.LogMean + l.LogSD*z) }

// ReadParams reads parameters from a JSON file (ParseParams).
func ReadParams(path string) (Params, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Params{}, fmt.Errorf("sim: simulator parameters: %w", err)
	}
	p, err := ParseParams(b)
	if err != nil {
		return Params{}, fmt.Errorf("%w (file %s)", err, path)
	}
	return p, nil
}

// WriteFile writes the parameters as indented JSON to path, through a
// temporary file in the same directory renamed into place, so that a
// failed write never leaves a half-written file there.
func (p Params) WriteFile(path string) (err error) {
	b, err := p.MarshalIndent()
	if err != nil {
		return fmt.Errorf("sim: write simulator parameters: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("sim: write simulator parameters: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(b); err != nil {
		return fmt.Errorf("sim: write simulator parameters: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("sim: write simulator parameters: %w", err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("sim: write simulator parameters: %w", err)
	}
	return nil
}
