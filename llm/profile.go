package llm

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/data"
)

var (
	stepLine = regexp.MustCompile(`(?im)^\s*(?:\d+\s*[.):]|step\s*\d+\b|[-*•]\s)`)
	hedgeRe  = regexp.MustCompile(`(?i)\b(?:maybe|perhaps|possibly|probably|might|not\s+(?:sure|certain)|unsure|uncertain|unclear|i\s+think|i\s+believe|i\s+guess|seems?|appears?\s+to|likely|could\s+be|hard\s+to\s+say)\b`)

	confKeyRe   = regexp.MustCompile(`(?i)confidence[^0-9\n]{0,20}?(\d+(?:\.\d+)?)\s*(?:%|/\s*100)?`)
	confAloneRe = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?)\s*(?:%|/\s*100)?\s*\.?\s*$`)
	confPctRe   = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:%|/\s*100\b)`)
)

// ProfileOf measures the reasoning profile of an answer text (thinking
// stripped): Steps is the number of numbered or bulleted lines ("1.",
// "Step 2", "- ") when there are at least two, else the number of
// non-empty lines; Hedges counts hedging words and phrases ("maybe",
// "I think", "not sure", ...); Tokens is completionTokens, the length of
// the answer as the server counted it. The agent states no confidence of
// its own in these prompts, so SelfConfidence stays missing.
func ProfileOf(text string, completionTokens int) data.Profile {
	t := StripThinking(text)
	steps := len(stepLine.FindAllStringIndex(t, -1))
	if steps < 2 {
		steps = 0
		for line := range strings.Lines(t) {
			if strings.TrimSpace(line) != "" {
				steps++
			}
		}
	}
	return data.Profile{
		Steps:  steps,
		Tokens: completionTokens,
		Hedges: len(hedgeRe.FindAllStringIndex(t, -1)),
	}
}

// ParseConfidence reads a critic's reply (thinking stripped) as a
// confidence in [0,1]: the number after the last "confidence" (as in
// "Confidence: 85", "**Confidence:** 85%"), else a reply that is only a
// number, else the last "N%" or "N/100"; divided by 100. It reports false
// when there is none or it lies outside [0,100].
func ParseConfidence(reply string) (float64, bool) {
	t := StripThinking(reply)
	var num string
	if m := confKeyRe.FindAllStringSubmatch(t, -1); len(m) > 0 {
		num = m[len(m)-1][1]
	} else if m := confAloneRe.FindStringSubmatch(t); m != nil {
		num = m[1]
	} else if m := confPctRe.FindAllStringSubmatch(t, -1); len(m) > 0 {
		num = m[len(m)-1][1]
	} else {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || v > 100 {
		return 0, false
	}
	return v / 100, true
}
