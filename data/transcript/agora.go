package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/answer"
)

// agoraItem is one question of an LLM-Agora result file. agent_response
// is kept raw: its keys (one per agent, the agent's model) are read in
// file order, which a Go map would lose.
type agoraItem struct {
	QuestionID    json.RawMessage `json:"question_id"`
	Question      *string         `json:"question"`
	AgentResponse json.RawMessage `json:"agent_response"`
	Answer        json.RawMessage `json:"answer"`
}

// eachAgora reads LLM-Agora's layout: a JSON array of {question_id,
// question, agent_response: {model: [answer per round]}, summarization,
// answer}. Each key of agent_response is an agent, named by its model
// (the team is heterogeneous); its list holds its answers, round 0 first.
// An agent's prompt is estimated as the question plus its own previous
// answers (the summary of the others' answers it was also sent is not
// counted: it is shared text the file records once per round).
func eachAgora(dec *json.Decoder, name string, meta Meta, critic bool, rep *Report, fn func(q *Question) error) error {
	if tok, err := dec.Token(); err != nil {
		return fmt.Errorf("transcript: %s: %w", name, err)
	} else if tok != json.Delim('[') {
		return fmt.Errorf("transcript: %s: offset %d: want a JSON array of {question, agent_response, answer} (agora layout), got %v", name, dec.InputOffset(), tok)
	}
	seen := questionSet{}
	for index := 0; dec.More(); index++ {
		off := dec.InputOffset()
		var it agoraItem
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == nil {
			err = strictJSON(raw, &agoraRules)
		}
		if err == nil {
			err = json.Unmarshal(raw, &it)
		}
		if err != nil {
			return fmt.Errorf("transcript: %s: offset %d: question %d: want {question, agent_response: {model: [answers]}, answer}: %w", name, off, index, err)
		}
		if it.Question == nil || len(it.AgentResponse) == 0 {
			return fmt.Errorf("transcript: %s: offset %d: question %d: want {question, agent_response: {model: [answers]}, answer}: question or agent_response missing", name, off, index)
		}
		models, answers, err := agoraAgents(it.AgentResponse)
		if err != nil {
			return fmt.Errorf("transcript: %s: offset %d: question %d: agent_response: %w", name, off, index, err)
		}
		gold := ""
		if len(it.Answer) > 0 {
			if gold, err = goldText(it.Answer); err != nil {
				return fmt.Errorf("transcript: %s: offset %d: question %d: answer: %w", name, off, index, err)
			}
		}
		text := *it.Question
		if err := seen.check(meta.Task, text, index); err != nil {
			return fmt.Errorf("transcript: %s: offset %d: question %d: %w", name, off, index, err)
		}
		q, skip := buildAgora(meta, critic, index, text, gold, models, answers)
		rep.Variants = addOnce(rep.Variants, "heterogeneous team")
		if err := rep.take(q, skip, index, fn); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return fmt.Errorf("transcript: %s: offset %d: %w", name, dec.InputOffset(), err)
	}
	return nil
}

// agoraAgents reads agent_response's keys and answer lists in file order.
func agoraAgents(raw json.RawMessage) (models []string, answers [][]string, err error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("want an object {model: [answers per round]}")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		model, _ := tok.(string)
		var rs []string
		if err := dec.Decode(&rs); err != nil {
			return nil, nil, fmt.Errorf("%s: want a list of answer strings: %w", model, err)
		}
		models, answers = append(models, model), append(answers, rs)
	}
	return models, answers, nil
}

func addOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// buildAgora turns one agora question's decoded parts into a Question, or
// names why it cannot be used.
func buildAgora(meta Meta, critic bool, index int, text, gold string, models []string, answers [][]string) (q *Question, skip string) {
	q = &Question{
		ID: QuestionID(meta.Task, text), File: meta.File, Index: index, Task: meta.Task,
		Text: text, GoldRaw: gold, Gold: answer.Gold(meta.Task, gold),
		Agents: make([][]Answer, len(answers)), Models: models,
	}
	opts := readOptions(meta.Task, text, critic)
	asked := answer.EstimateTokens(text)
	for k, rs := range answers {
		prompt := asked
		for _, r := range rs {
			a := newAnswer(meta.Task, r, opts, prompt)
			q.Agents[k] = append(q.Agents[k], a)
			prompt += a.Profile.Tokens // EstimateTokens(r), counted once
		}
		if len(rs) == 0 && skip == "" {
			skip = fmt.Sprintf("agent %d (%s) has no answer", k, models[k])
		}
	}
	if len(answers) < 2 && skip == "" {
		skip = fmt.Sprintf("%d agents, want ≥ 2", len(answers))
	}
	if skip != "" {
		q = nil
	}
	return q, skip
}
