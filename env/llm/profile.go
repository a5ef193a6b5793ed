package llm

import (
	"regexp"
	"strconv"
)

var (
	confKeyRe   = regexp.MustCompile(`(?i)confidence[^0-9\n]{0,20}?(\d+(?:\.\d+)?)\s*(?:%|/\s*100)?`)
	confAloneRe = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?)\s*(?:%|/\s*100)?\s*\.?\s*$`)
	confPctRe   = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(?:%|/\s*100\b)`)
)

// ParseConfidence reads the judge's reply (thinking stripped) as a
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
