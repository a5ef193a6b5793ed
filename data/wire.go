package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/metapolicy"
)

// The wire types mirror the records with a pointer for every field, so
// that a missing required field is told apart from a zero value, and with
// actions as strings, so that an unknown action is reported with its path.
// Both kinds share one root type: one decode pass finds the kind and every
// field, and fields of the other kind are rejected after it.
type wireRecord struct {
	Kind *string `json:"kind"`
	// episode
	ID       *string      `json:"id"`
	Task     *string      `json:"task"`
	Question *string      `json:"question"`
	Gold     *string      `json:"gold"`
	Source   *string      `json:"source"`
	Policy   *string      `json:"policy"`
	Agents   *int         `json:"agents"`
	Rounds   *[]wireRound `json:"rounds"`
	// decision
	Group    *string     `json:"group"`
	Features *featureVec `json:"features"`
	Action   *string     `json:"action"`
	Reward   *float64    `json:"reward"`
	LogProb  *float64    `json:"logprob"`
}

type wireRound struct {
	Turns *[]wireTurn `json:"turns"`
}

type wireTurn struct {
	Action     *string         `json:"action"`
	LogProb    *float64        `json:"logprob"`
	Answer     *string         `json:"answer"`
	Confidence *float64        `json:"confidence"`
	Profile    *Profile        `json:"profile"`
	Tokens     *int            `json:"tokens"`
	Text       *string         `json:"text"`
	Model      *string         `json:"model"`
	Exchanges  *[]wireExchange `json:"exchanges"`
}

type wireExchange struct {
	Role             *string `json:"role"`
	Prompt           *string `json:"prompt"`
	Response         *string `json:"response"`
	PromptTokens     *int    `json:"prompt_tokens"`
	CompletionTokens *int    `json:"completion_tokens"`
	Error            *string `json:"error"`
}

// featureVec parses a JSON array of numbers itself: faster than reflection,
// it rejects null elements (which encoding/json would turn into 0) and it
// names the index of a bad element.
type featureVec []float64

func (v *featureVec) UnmarshalJSON(b []byte) error {
	// encoding/json has checked the syntax: b is one well-formed value.
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return fieldErr("features", "want an array of numbers, got %s", describeJSON(b))
	}
	out := make([]float64, 0, bytes.Count(b, []byte{','})+1)
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	if len(b) > 0 && b[0] == ']' {
		*v = out
		return nil
	}
	for k := 0; ; k++ {
		n := 0
		for n < len(b) && isNumberByte(b[n]) {
			n++
		}
		if n == 0 {
			return fieldErr("features["+strconv.Itoa(k)+"]", "want a number, got %s", describeJSON(b))
		}
		x, err := strconv.ParseFloat(string(b[:n]), 64)
		if err != nil {
			return fieldErr("features["+strconv.Itoa(k)+"]", "%s is out of float64 range", b[:n])
		}
		out = append(out, x)
		b = bytes.TrimLeft(b[n:], " \t\r\n")
		if len(b) > 0 && b[0] == ']' {
			*v = out
			return nil
		}
		// A comma, since the syntax is valid.
		b = bytes.TrimLeft(b[1:], " \t\r\n")
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// describeJSON names the type of the JSON value that starts b.
func describeJSON(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch c := b[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// decodeLine parses and validates one non-blank line. width is the
// feature width decisions must have (0: any).
func decodeLine(line []byte, width int) (Record, *RecordError) {
	if rec, err, ok := fastDecision(line, width); ok {
		return rec, err
	}
	return decodeGeneral(line, width)
}

// decodeGeneral decodes any line with encoding/json and explains failures.
func decodeGeneral(line []byte, width int) (Record, *RecordError) {
	var w wireRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&w)
	if err == nil && len(bytes.TrimSpace(line[dec.InputOffset():])) != 0 {
		err = errors.New("trailing data")
	}
	if err != nil {
		var re *RecordError
		if errors.As(err, &re) {
			return Record{}, re
		}
		if re = diagnose(line); re != nil {
			return Record{}, re
		}
		return Record{}, fieldErr("json", "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if re := checkStrict(line); re != nil {
		return Record{}, re
	}
	return w.record(width)
}

var (
	episodeOnly  = []string{"id", "task", "question", "gold", "source", "policy", "agents", "rounds"}
	decisionOnly = []string{"group", "features", "action", "reward", "logprob"}
)

// present reports which root fields the line had, by name.
func (w *wireRecord) present(name string) bool {
	switch name {
	case "id":
		return w.ID != nil
	case "task":
		return w.Task != nil
	case "question":
		return w.Question != nil
	case "gold":
		return w.Gold != nil
	case "source":
		return w.Source != nil
	case "policy":
		return w.Policy != nil
	case "agents":
		return w.Agents != nil
	case "rounds":
		return w.Rounds != nil
	case "group":
		return w.Group != nil
	case "features":
		return w.Features != nil
	case "action":
		return w.Action != nil
	case "reward":
		return w.Reward != nil
	case "logprob":
		return w.LogProb != nil
	}
	return false
}

func missing(field string) *RecordError { return fieldErr(field, "missing") }

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func (w *wireRecord) record(width int) (Record, *RecordError) {
	if w.Kind == nil {
		return Record{}, missing("kind")
	}
	var other []string
	switch *w.Kind {
	case KindEpisode:
		other = decisionOnly
	case KindDecision:
		other = episodeOnly
	default:
		return Record{}, fieldErr("kind", "unknown kind %q (want %q or %q)", *w.Kind, KindEpisode, KindDecision)
	}
	for _, f := range other {
		if w.present(f) {
			article := "a"
			if *w.Kind == KindEpisode {
				article = "an"
			}
			return Record{}, fieldErr(f, "not a field of %s %s record", article, *w.Kind)
		}
	}
	if *w.Kind == KindDecision {
		d, err := w.decision(width)
		return Record{Decision: d}, err
	}
	ep, err := w.episode()
	return Record{Episode: ep}, err
}

func (w *wireRecord) decision(width int) (*Decision, *RecordError) {
	switch {
	case w.Group == nil:
		return nil, missing("group")
	case w.Features == nil:
		return nil, missing("features")
	case w.Action == nil:
		return nil, missing("action")
	case w.Reward == nil:
		return nil, missing("reward")
	}
	a, err := parseAction("action", *w.Action)
	if err != nil {
		return nil, err
	}
	d := &Decision{Kind: KindDecision, Group: *w.Group, Features: *w.Features, Action: a, Reward: *w.Reward, LogProb: w.LogProb}
	if d.Features == nil {
		d.Features = []float64{}
	}
	return d, validateDecision(d, width)
}

func parseAction(field, s string) (metapolicy.Action, *RecordError) {
	a, err := metapolicy.ParseAction(s)
	if err != nil {
		return 0, fieldErr(field, "unknown action %q (want %s)", s, metapolicy.NamesList())
	}
	return a, nil
}

func (w *wireRecord) episode() (*Episode, *RecordError) {
	switch {
	case w.ID == nil:
		return nil, missing("id")
	case w.Task == nil:
		return nil, missing("task")
	case w.Agents == nil:
		return nil, missing("agents")
	case w.Rounds == nil:
		return nil, missing("rounds")
	}
	ep := &Episode{
		Kind: KindEpisode, ID: *w.ID, Task: *w.Task, Question: str(w.Question), Gold: str(w.Gold),
		Source: str(w.Source), Policy: str(w.Policy), Agents: *w.Agents,
		Rounds: make([]Round, len(*w.Rounds)),
	}
	for t, wr := range *w.Rounds {
		if wr.Turns == nil {
			return nil, missing(roundPath(t) + ".turns")
		}
		turns := make([]Turn, len(*wr.Turns))
		for i := range *wr.Turns {
			if err := (*wr.Turns)[i].turn(&turns[i], turnPath(t, i)); err != nil {
				return nil, err
			}
		}
		ep.Rounds[t].Turns = turns
	}
	return ep, validateEpisode(ep)
}

func (w *wireTurn) turn(u *Turn, path string) *RecordError {
	switch {
	case w.Answer == nil:
		return missing(path + ".answer")
	case w.Profile == nil:
		return missing(path + ".profile")
	case w.Tokens == nil:
		return missing(path + ".tokens")
	}
	*u = Turn{LogProb: w.LogProb, Answer: *w.Answer, Confidence: w.Confidence, Profile: *w.Profile, Tokens: *w.Tokens, Text: str(w.Text), Model: str(w.Model)}
	if w.Action != nil {
		a, err := parseAction(path+".action", *w.Action)
		if err != nil {
			return err
		}
		u.Action = &a
	}
	if w.Exchanges != nil && len(*w.Exchanges) > 0 {
		u.Exchanges = make([]Exchange, len(*w.Exchanges))
		for k, x := range *w.Exchanges {
			xp := path + ".exchanges[" + strconv.Itoa(k) + "]"
			switch {
			case x.Role == nil:
				return missing(xp + ".role")
			case x.Prompt == nil:
				return missing(xp + ".prompt")
			case x.Response == nil:
				return missing(xp + ".response")
			case x.PromptTokens == nil:
				return missing(xp + ".prompt_tokens")
			case x.CompletionTokens == nil:
				return missing(xp + ".completion_tokens")
			}
			u.Exchanges[k] = Exchange{Role: *x.Role, Prompt: *x.Prompt, Response: *x.Response,
				PromptTokens: *x.PromptTokens, CompletionTokens: *x.CompletionTokens, Error: str(x.Error)}
		}
	}
	return nil
}
