package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The chat-completions wire format: only the fields this package sends or
// reads. Servers add many more; they are ignored.

type wireRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Seed        *int64    `json:"seed,omitempty"`
	Stream      bool      `json:"stream"`
}

type wireResponse struct {
	Model   string          `json:"model"`
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Message *struct {
		Role    string  `json:"role"`
		Content *string `json:"content"`
		// Reasoning models served by vLLM, llama.cpp (--reasoning-format)
		// and DeepSeek put their thinking here rather than in content.
		ReasoningContent *string `json:"reasoning_content"`
	} `json:"message"`
	FinishReason *string `json:"finish_reason"`
}

type wireUsage struct {
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
	TotalTokens      *int `json:"total_tokens"`
}

// maxBody bounds what the client reads of one answer.
const maxBody = 16 << 20

// decodeResponse reads a 2xx body.
func decodeResponse(body []byte, status int) (Response, error) {
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return Response{}, fmt.Errorf("llm: %w: %s; body starts %s", ErrMalformed, jsonReason(err), quote(body))
	}
	if len(w.Error) > 0 && !bytes.Equal(w.Error, []byte("null")) {
		e := &APIError{StatusCode: status}
		e.Message, e.Type = errorMessage(body)
		return Response{}, e
	}
	if len(w.Choices) == 0 {
		return Response{}, fmt.Errorf("llm: %w: no choices; body starts %s", ErrMalformed, quote(body))
	}
	c := w.Choices[0]
	if c.Message == nil {
		return Response{}, fmt.Errorf("llm: %w: choices[0] has no message; body starts %s", ErrMalformed, quote(body))
	}
	r := Response{Model: w.Model, Null: c.Message.Content == nil}
	if c.Message.Content != nil {
		r.Content = *c.Message.Content
	}
	if c.Message.ReasoningContent != nil {
		r.Reasoning = *c.Message.ReasoningContent
	}
	if c.FinishReason != nil {
		r.FinishReason = *c.FinishReason
	}
	if u := w.Usage; u != nil {
		for _, n := range []*int{u.PromptTokens, u.CompletionTokens, u.TotalTokens} {
			if n != nil && *n < 0 {
				return Response{}, fmt.Errorf("llm: %w: usage: negative token count %d", ErrMalformed, *n)
			}
		}
		if u.PromptTokens != nil && u.CompletionTokens != nil {
			r.Usage = Usage{PromptTokens: *u.PromptTokens, CompletionTokens: *u.CompletionTokens, Known: true}
		}
	}
	return r, nil
}

// errorMessage digs the message out of an error body, at most 300 bytes of
// it and 100 of the type.
func errorMessage(body []byte) (msg, typ string) {
	msg, typ = errorText(body)
	return clip([]byte(msg), 300), clip([]byte(typ), 100)
}

// errorText finds the message in an error body. Servers disagree on the
// shape: OpenAI and llama.cpp send {"error":{"message","type"}}, vLLM
// {"object":"error","message","type"}, Ollama sometimes {"error":"text"}.
// Anything else is quoted.
func errorText(body []byte) (msg, typ string) {
	var w struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Detail  json.RawMessage `json:"detail"` // FastAPI-style servers
	}
	if json.Unmarshal(body, &w) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case len(w.Error) > 0 && json.Unmarshal(w.Error, &obj) == nil && obj.Message != "":
			return obj.Message, obj.Type
		case len(w.Error) > 0 && json.Unmarshal(w.Error, &s) == nil && s != "":
			return s, ""
		case w.Message != "":
			return w.Message, w.Type
		case len(w.Detail) > 0 && json.Unmarshal(w.Detail, &s) == nil && s != "":
			return s, ""
		case len(w.Detail) > 0:
			return string(w.Detail), ""
		}
	}
	return strings.TrimSpace(clip(body, 300)), ""
}

// retryAfter reads the wait a server asks for: OpenAI's retry-after-ms
// first, then Retry-After in seconds or as an HTTP date.
func retryAfter(ms, std string, now time.Time) time.Duration {
	if f, err := strconv.ParseFloat(strings.TrimSpace(ms), 64); err == nil && f > 0 && f < 1e12 {
		return time.Duration(f * float64(time.Millisecond))
	}
	std = strings.TrimSpace(std)
	if std == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(std, 64); err == nil {
		if n > 0 && n < 1e9 {
			return time.Duration(n * float64(time.Second))
		}
		return 0
	}
	if t, err := time.Parse(time.RFC1123, std); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// quote shows the start of a body in an error message.
func quote(body []byte) string { return strconv.Quote(clip(body, 120)) }

// clip returns at most n bytes of b, cut on a rune boundary.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "…"
}
