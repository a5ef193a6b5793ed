package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/jsonscan"
)

// MaxQuestionBytes caps one question of a transcript as written: its key
// and value (debate layout) or its object (agora), agents' chats included.
// The largest of the shared real transcripts is 0.8 MB; 32 MiB is 40 times
// that, and half the rollout line limit (data.DefaultMaxLineBytes), so
// that the question's episode, which keeps only the answers of those chats,
// fits a line. One string is capped at data.MaxTextBytes, counted as
// written (escapes included). Both bound the memory of a read.
const MaxQuestionBytes = 32 << 20

// Layout names a transcript file layout:
//
//   - debate: one JSON object mapping each question's text to
//     [agent_contexts, gold, extra...]. agent_contexts[k] is agent k's
//     chat: {"role", "content"} messages, whose t-th "assistant" message
//     is its round-t answer, or plain strings (the first the prompt, each
//     later one a reply). "system" messages count only towards the prompt.
//     Elements after gold (Diverse_Minds' correct flag, DyLAN's index and
//     subject) are skipped. DyLAN's teams vary by question (2–4 agents,
//     1–3 answers); a question where agents recorded different numbers of
//     answers is ragged: the one that stopped keeps its last answer.
//   - agora: LLM-Agora's JSON array of {question_id, question,
//     agent_response: {model: [answer per round]}, summarization, answer}.
//     Each agent is a different model; Question.Models keeps them, in file
//     order, and the episode's Source names them.
type Layout string

// The layouts Each reads. LayoutAuto detects the layout from the first
// byte of the JSON: an object is LLM-Debate's, an array LLM-Agora's.
const (
	LayoutAuto   Layout = ""
	LayoutDebate Layout = "debate" // LLM-Debate and its variants (plain-string contexts, extra elements, DyLAN)
	LayoutAgora  Layout = "agora"  // LLM-Agora: a list of {question, agent_response, answer}
)

// ParseLayout reads a layout name: "auto" (or ""), "debate", "agora".
func ParseLayout(s string) (Layout, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return LayoutAuto, nil
	case "debate", "llm-debate", "dylan":
		return LayoutDebate, nil
	case "agora", "llm-agora":
		return LayoutAgora, nil
	}
	return "", fmt.Errorf("transcript: unknown layout %q (want auto, debate or agora)", s)
}

// Options control how a transcript is read. Zero values mean: take it from
// the file name (ParseName) or the content.
type Options struct {
	Task   answer.Kind // answer rules; needed when the name does not say
	Model  string      // model label for reports
	Layout Layout      // file layout; LayoutAuto detects it
	// SkipCritic leaves every Answer.Critic nil: the text critic, about
	// two thirds of reading an answer, is not run. Readers that never use its
	// confidence set it (Import unless EpisodeOptions.Critic; data corpus;
	// a replay, which reads it with Question.WithCritic only when it plays
	// with the critic).
	SkipCritic bool
}

// File is a whole transcript file in memory.
type File struct {
	Path      string
	Meta      Meta // from the name, Task and Model overridden by Options
	Questions []Question
	Report    Report
}

// message is one entry of an agent context: a {role, content} message, or
// a plain string (plain is then true; its role follows from its place).
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	plain   bool
}

func (m *message) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		m.plain = true
		return json.Unmarshal(b, &m.Content)
	}
	if err := strictJSON(b, &messageRules); err != nil {
		return err
	}
	type msg message
	var v msg
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("want a {role, content} message or a string")
	}
	*m = message(v)
	return nil
}

// ReadFile reads a whole transcript file (see Each).
func ReadFile(path string, opts Options) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	meta, err := resolveMeta(path, opts)
	if err != nil {
		return nil, err
	}
	tf := &File{Path: path, Meta: meta}
	rep, err := each(f, path, meta, opts, func(q *Question) error {
		tf.Questions = append(tf.Questions, *q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	tf.Report = *rep
	return tf, nil
}

// Each reads a transcript from r and calls fn with every usable question
// in file order. r may be gzip- or zstd-compressed (detected by its magic
// bytes). It decodes one question at a time, so memory is bounded by the
// largest question, not the file. name is the file's path: it gives the
// task and model unless opts does, and it prefixes errors.
//
// A file in neither layout, or a question that departs from its layout,
// is an error naming the file, the byte offset (in the decompressed
// stream), the question's index and what was expected. So is a question
// text given twice in one file (its two episodes would share a task id), a
// text longer than data.MaxTextBytes or a question longer than
// MaxQuestionBytes, both counted as written: the read stops there, before
// the decoder holds the over-long value, so a small compressed file cannot
// take more memory than the caps. A leading UTF-8 byte order mark is
// skipped; a compressed file cut short is said to be truncated. A
// well-formed question that cannot be replayed — fewer than two agents, or
// an agent without any answer — is skipped and listed in the report. fn's
// error stops the read and is returned as is.
//
// Every answer is read by answer.Read with its question (so an MMLU answer
// given as an option's text can be matched to the options): normalised,
// "" when unreadable — counted, per round and per file, in the Report,
// never guessed.
func Each(r io.Reader, name string, opts Options, fn func(q *Question) error) (*Report, error) {
	meta, err := resolveMeta(name, opts)
	if err != nil {
		return nil, err
	}
	return each(r, name, meta, opts, fn)
}

// each is Each with the file name already read into meta. A file that can
// be read again from its start (an io.ReadSeeker: a file) is
// read by the fast path (fast.go), and by eachSlow only when the fast path
// gives up.
func each(r io.Reader, name string, meta Meta, opts Options, fn func(q *Question) error) (*Report, error) {
	if rs, ok := r.(io.ReadSeeker); ok && !slowOnly {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			delivered := 0
			rep, err := eachFast(rs, name, meta, opts, fn, &delivered)
			if err != errFallback {
				return rep, err
			}
			if _, err := rs.Seek(start, io.SeekStart); err != nil {
				return nil, fmt.Errorf("transcript: %s: %w", name, err)
			}
			fn = skipFirst(delivered, fn)
		}
	}
	return eachSlow(r, name, meta, opts, fn)
}

// slowOnly, set by tests, reads every file by eachSlow.
var slowOnly bool

// eachSlow reads by encoding/json, through a Guard: the reference reading.
func eachSlow(r io.Reader, name string, meta Meta, opts Options, fn func(q *Question) error) (*Report, error) {
	layout := opts.Layout
	dr, err := data.Decompress(r, name)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer dr.Close()
	// The guard stops the stream at the first string or question over its
	// limit, before the decoder buffers it: a small compressed file can
	// hold a gigabyte-long message.
	br := bufio.NewReaderSize(data.LimitJSON(dr, data.MaxTextBytes, MaxQuestionBytes), 64<<10)
	first, err := firstByte(br)
	if err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", name, err)
	}
	if layout == LayoutAuto {
		switch first {
		case '{':
			layout = LayoutDebate
		case '[':
			layout = LayoutAgora
		default:
			return nil, fmt.Errorf("transcript: %s: offset 0: want a JSON object (LLM-Debate layout: question → [agent_contexts, gold, ...]) or a JSON array (LLM-Agora layout: [{question, agent_response, answer}, ...]), got %q", name, first)
		}
	}
	rep := &Report{File: meta.File, Task: meta.Task, Model: meta.Model, Layout: layout}
	dec := json.NewDecoder(br)
	switch layout {
	case LayoutDebate:
		err = eachDebate(dec, name, meta, !opts.SkipCritic, rep, fn)
	case LayoutAgora:
		err = eachAgora(dec, name, meta, !opts.SkipCritic, rep, fn)
	default:
		err = fmt.Errorf("transcript: %s: unknown layout %q", name, layout)
	}
	if err == nil {
		if _, terr := dec.Token(); terr == nil {
			err = fmt.Errorf("transcript: %s: offset %d: data after the top-level value", name, dec.InputOffset())
		} else if !errors.Is(terr, io.EOF) {
			err = fmt.Errorf("transcript: %s: offset %d: after the top-level value: %w", name, dec.InputOffset(), terr)
		}
	}
	if err != nil {
		return nil, explain(err, name, dr)
	}
	rep.finish(meta)
	return rep, nil
}

// explain rewrites the errors whose words would mislead: a string or
// question over its limit (the guard's), and a stream that ends early.
func explain(err error, name string, dr io.Reader) error {
	var le *data.LimitError
	var se *jsonscan.SurrogateError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("transcript: %s: offset %d: question %d: a lone UTF-16 surrogate \\u%04x: not a character, and texts that differ would read alike", name, se.Offset, se.Element, se.Escape)
	case errors.As(err, &le) && le.String:
		return fmt.Errorf("transcript: %s: offset %d: question %d: a text longer than %d bytes, the limit per text (runaway output or not a transcript)", name, le.Offset, le.Element, le.Limit)
	case errors.As(err, &le):
		return fmt.Errorf("transcript: %s: offset %d: question %d is longer than %d bytes, the limit per question", name, le.Offset, le.Element, le.Limit)
	case errors.Is(err, io.ErrUnexpectedEOF) && data.Compressed(dr):
		return fmt.Errorf("%w (the compressed stream is truncated: it stops before its end; was the file cut short?)", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w (the file ends mid-value: truncated?)", err)
	}
	return err
}

// firstByte peeks at the first byte that is not JSON white space, after
// a UTF-8 byte order mark (which editors on Windows write; JSON forbids it
// but readers commonly skip it).
func firstByte(br *bufio.Reader) (byte, error) {
	if b, _ := br.Peek(3); len(b) == 3 && len(data.TrimBOM(b)) == 0 {
		br.Discard(3)
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, errors.New("empty file")
			}
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.ReadByte()
			continue
		}
		return b[0], nil
	}
}

// eachDebate reads the LLM-Debate layout: an object mapping each question
// text to [agent_contexts, gold, extra...].
func eachDebate(dec *json.Decoder, name string, meta Meta, critic bool, rep *Report, fn func(q *Question) error) error {
	if tok, err := dec.Token(); err != nil {
		return fmt.Errorf("transcript: %s: %w", name, err)
	} else if tok != json.Delim('{') {
		return fmt.Errorf("transcript: %s: offset %d: want a JSON object mapping questions to [agent_contexts, gold] (debate layout), got %v", name, dec.InputOffset(), tok)
	}
	seen := questionSet{}
	for index := 0; dec.More(); index++ {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("transcript: %s: offset %d: question %d: %w", name, off, index, err)
		}
		text, _ := tok.(string) // object keys are strings
		if err := seen.check(meta.Task, text, index); err != nil {
			return fmt.Errorf("transcript: %s: offset %d: question %d: %w", name, off, index, err)
		}
		ctxs, gold, extra, err := decodeValue(dec)
		if err != nil {
			return fmt.Errorf("transcript: %s: offset %d: question %d: %w", name, off, index, err)
		}
		rep.noteValue(ctxs, extra)
		q, skip := buildQuestion(meta.Task, meta.File, index, text, ctxs, gold, critic)
		if err := rep.take(q, skip, index, fn); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return fmt.Errorf("transcript: %s: offset %d: %w", name, dec.InputOffset(), err)
	}
	return nil
}

// resolveMeta reads the file name and applies the options over it.
func resolveMeta(name string, opts Options) (Meta, error) {
	meta := ParseName(name)
	if opts.Task != "" {
		t, err := answer.ParseKind(string(opts.Task))
		if err != nil {
			return meta, fmt.Errorf("transcript: %w", err)
		}
		meta.Task = t
	}
	if opts.Model != "" {
		meta.Model = opts.Model
	}
	if meta.Task == "" {
		return meta, fmt.Errorf("transcript: %s: task unknown: the name does not start with a task (gsm_, mmlu_, arithmetic_, math_, after an optional agora_ or dylan_); give the task: --kind K, or kind=K in a replay: spec", name)
	}
	return meta, nil
}

// decodeValue reads one question's value, [agent_contexts, gold, extra...],
// element by element so that the JSON is scanned once; it returns how many
// extra elements followed the gold.
func decodeValue(dec *json.Decoder) (ctxs [][]message, gold string, extra int, err error) {
	const want = "want [agent_contexts, gold, ...]"
	if tok, err := dec.Token(); err != nil {
		return nil, "", 0, err
	} else if tok != json.Delim('[') {
		return nil, "", 0, fmt.Errorf("value: %s, got %v", want, tok)
	}
	if !dec.More() {
		return nil, "", 0, fmt.Errorf("value: %s, got []", want)
	}
	if err := dec.Decode(&ctxs); err != nil {
		return nil, "", 0, fmt.Errorf("agent_contexts: want an array of chats, each a list of {role, content} messages or strings: %w", err)
	}
	if !dec.More() {
		return nil, "", 0, fmt.Errorf("value: %s, gold missing", want)
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, "", 0, fmt.Errorf("gold: %w", err)
	}
	if gold, err = goldText(raw); err != nil {
		return nil, "", 0, fmt.Errorf("gold: %w", err)
	}
	for dec.More() { // DyLAN's [contexts, gold, int, subject], Diverse_Minds' correct flag
		if err := dec.Decode(&raw); err != nil {
			return nil, "", 0, fmt.Errorf("value element %d: %w", 2+extra, err)
		}
		extra++
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return nil, "", 0, err
	}
	return ctxs, gold, extra, nil
}

// buildQuestion turns one question's decoded value into a Question. skip
// names why a well-formed question cannot be used. In a context, a plain
// string is the prompt when it comes first and an answer otherwise.
func buildQuestion(task answer.Kind, file string, index int, text string, ctxs [][]message, gold string, critic bool) (q *Question, skip string) {
	q = &Question{
		ID: QuestionID(task, text), File: file, Index: index, Task: task,
		Text: text, GoldRaw: gold, Gold: answer.Gold(task, gold),
		Agents: make([][]Answer, len(ctxs)),
	}
	opts := readOptions(task, text, critic)
	for k, chat := range ctxs {
		prompt := 0
		for i, m := range chat {
			if m.Role == "assistant" || m.plain && i > 0 {
				a := newAnswer(task, m.Content, opts, prompt)
				q.Agents[k] = append(q.Agents[k], a)
				prompt += a.Profile.Tokens // EstimateTokens(m.Content), counted once
				continue
			}
			prompt += answer.EstimateTokens(m.Content)
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

// newAnswer reads one response with answer.Read (the critic too unless
// Options.SkipCritic: kept on the Answer, the replay or episode decides
// later whether to use it).
func newAnswer(task answer.Kind, text string, opts answer.Options, prompt int) Answer {
	r := answer.Read(task, text, opts)
	return Answer{Text: text, Answer: r.Answer, Profile: r.Profile, Critic: r.Critic, PromptTokens: prompt}
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

// baseName is the file's base name without compression suffix.
func baseName(name string) string {
	b := filepath.Base(name)
	for _, ext := range []string{".gz", ".zst"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// readOptions gives answer.Read a question's choices, parsed once for all
// its answers, and whether to run the critic.
func readOptions(task answer.Kind, question string, critic bool) answer.Options {
	if task != answer.MMLU {
		return answer.Options{Critic: critic}
	}
	return answer.Options{Choices: answer.Choices(question), Critic: critic}
}

// questionSet finds a question text given twice in one file (a debate
// layout's key, repeated; an agora question listed twice). Each would
// become an episode of one task id: two answers to one question, as if
// independent, which skews any split or mean by question. It is an error
// rather than renamed, since which of the two is right cannot be told.
// Questions are kept by their ID (a 48-bit hash): 8 bytes and a map entry
// each.
type questionSet map[string]int

func (s questionSet) check(task answer.Kind, text string, index int) error {
	id := QuestionID(task, text)
	if j, ok := s[id]; ok {
		return fmt.Errorf("the same question text as question %d (task id %s): a file must hold each question once (remove or merge the repeat)", j, id)
	}
	s[id] = index
	return nil
}
