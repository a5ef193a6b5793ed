package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Options control how a transcript is read. Zero values mean: take it from
// the file name (ParseName).
type Options struct {
	Task  Task   // answer rules; needed when the name does not say
	Model string // model label for reports
}

// File is a whole transcript file in memory.
type File struct {
	Path      string
	Meta      Meta // from the name, Task and Model overridden by Options
	Questions []Question
	Report    Report
}

// message is one chat message of an agent context.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ReadFile reads a whole transcript file (see Each).
func ReadFile(path string, opts Options) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	tf := &File{Path: path}
	rep, err := Each(f, path, opts, func(q *Question) error {
		tf.Questions = append(tf.Questions, *q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tf.Report = *rep
	tf.Meta, _ = resolveMeta(path, opts) // Each checked it
	return tf, nil
}

// Each reads an LLM-Debate transcript from r — one JSON object mapping each
// question text to [agent_contexts, gold] — and calls fn with every usable
// question in file order. It decodes one question at a time, so memory is
// bounded by the largest question, not the file. name is the file's path:
// it gives the task and model unless opts does, and it prefixes errors.
//
// A question whose value is not [agent_contexts, gold] is an error (with its
// byte offset and index). A well-formed question that cannot be replayed —
// fewer than two agents, or an agent without any assistant message — is
// skipped and listed in the report. fn's error stops the read and is
// returned as is. The report counts answers and unreadable ones per round.
func Each(r io.Reader, name string, opts Options, fn func(q *Question) error) (*Report, error) {
	meta, err := resolveMeta(name, opts)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(name)
	rep := &Report{File: base, Task: meta.Task, Model: meta.Model}
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", name, err)
	} else if tok != json.Delim('{') {
		return nil, fmt.Errorf("transcript: %s: offset %d: want a JSON object mapping questions to [agent_contexts, gold], got %v", name, dec.InputOffset(), tok)
	}
	for index := 0; dec.More(); index++ {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("transcript: %s: offset %d: question %d: %w", name, off, index, err)
		}
		text, _ := tok.(string) // object keys are strings
		ctxs, gold, err := decodeValue(dec)
		if err != nil {
			return nil, fmt.Errorf("transcript: %s: offset %d: question %d: %w", name, off, index, err)
		}
		q, skip := buildQuestion(meta.Task, base, index, text, ctxs, gold)
		if skip != "" {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("question %d: %s", index, skip))
			continue
		}
		rep.add(q)
		if err := fn(q); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, fmt.Errorf("transcript: %s: offset %d: %w", name, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("transcript: %s: offset %d: data after the top-level object", name, dec.InputOffset())
	}
	rep.finish(meta)
	return rep, nil
}

// resolveMeta reads the file name and applies the options over it.
func resolveMeta(name string, opts Options) (Meta, error) {
	meta := ParseName(name)
	if opts.Task != "" {
		t, err := ParseTask(string(opts.Task))
		if err != nil {
			return meta, err
		}
		meta.Task = t
	}
	if opts.Model != "" {
		meta.Model = opts.Model
	}
	if meta.Task == "" {
		return meta, fmt.Errorf("transcript: %s: task unknown: the name does not start with gsm_ or mmlu_; give Options.Task", name)
	}
	return meta, nil
}

// decodeValue reads one question's value, [agent_contexts, gold], element
// by element so that the JSON is scanned once.
func decodeValue(dec *json.Decoder) (ctxs [][]message, gold string, err error) {
	if tok, err := dec.Token(); err != nil {
		return nil, "", err
	} else if tok != json.Delim('[') {
		return nil, "", fmt.Errorf("value: want [agent_contexts, gold], got %v", tok)
	}
	if !dec.More() {
		return nil, "", fmt.Errorf("value: want [agent_contexts, gold], got []")
	}
	if err := dec.Decode(&ctxs); err != nil {
		return nil, "", fmt.Errorf("agent_contexts: want an array of chats of {role, content}: %w", err)
	}
	if !dec.More() {
		return nil, "", fmt.Errorf("value: want [agent_contexts, gold], gold missing")
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, "", fmt.Errorf("gold: %w", err)
	}
	if gold, err = goldText(raw); err != nil {
		return nil, "", fmt.Errorf("gold: %w", err)
	}
	if dec.More() {
		return nil, "", fmt.Errorf("value: want [agent_contexts, gold], got more elements")
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return nil, "", err
	}
	return ctxs, gold, nil
}

// buildQuestion turns one question's decoded value into a Question. skip
// names why a well-formed question cannot be used.
func buildQuestion(task Task, file string, index int, text string, ctxs [][]message, gold string) (q *Question, skip string) {
	q = &Question{
		ID: QuestionID(task, text), File: file, Index: index, Task: task,
		Text: text, GoldRaw: gold, Gold: NormalizeGold(task, gold),
		Agents: make([][]Answer, len(ctxs)),
	}
	var choices []string
	if task == MMLU {
		choices = Choices(text)
	}
	for k, chat := range ctxs {
		prompt := 0
		for _, m := range chat {
			if m.Role == "assistant" {
				q.Agents[k] = append(q.Agents[k], Answer{
					Text: m.Content, Answer: extract(task, choices, m.Content),
					Profile: ProfileOf(m.Content), PromptTokens: prompt,
				})
			}
			prompt += EstimateTokens(m.Content)
		}
		if len(q.Agents[k]) == 0 {
			return nil, fmt.Sprintf("agent %d has no assistant message", k)
		}
	}
	if len(ctxs) < 2 {
		return nil, fmt.Sprintf("%d agents, want ≥ 2", len(ctxs))
	}
	return q, ""
}

func extract(task Task, choices []string, text string) string {
	if task == MMLU {
		return ExtractLetterIn(text, choices)
	}
	return Extract(task, text)
}

// goldText reads the gold answer: a string, or a number kept as written.
func goldText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	switch {
	case len(raw) > 0 && raw[0] == '"':
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		s = string(raw)
	case string(raw) == "null":
		s = ""
	default:
		return "", fmt.Errorf("want a string or a number, got %.20s", raw)
	}
	return s, nil
}
