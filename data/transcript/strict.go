package transcript

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// A transcript is read as strictly as every JSON input of mpdf
// (internal/jsonscan.Check): a message with "content" twice, or "ROLE" for
// "role", would be read by encoding/json with the last value winning or the
// case ignored, so that what one reader scores another would not.
var (
	messageRules = jsonscan.Rules{Fields: []string{"role", "content"}}
	agoraRules   = jsonscan.Rules{Fields: []string{"question_id", "question", "agent_response", "answer"}, TopKeysOnly: true}
)

// strictJSON refuses what Check refuses in the value b, naming the key's
// path within it.
func strictJSON(b []byte, r *jsonscan.Rules) error {
	_, o := jsonscan.Check(b, r)
	if o == nil {
		return nil
	}
	var path []string
	for _, s := range o.Path {
		if s.IsKey {
			path = append(path, jsonscan.Clip(s.Key))
		} else {
			path = append(path, fmt.Sprintf("[%d]", s.Index))
		}
	}
	if len(path) > 0 && (o.Problem == jsonscan.DuplicateKey || o.Problem == jsonscan.KeyCase) {
		path = path[:len(path)-1] // the key, named below
	}
	at := strings.Join(path, ".")
	if at != "" {
		at += ": "
	}
	switch o.Problem {
	case jsonscan.DuplicateKey:
		if o.Key != o.Other {
			return fmt.Errorf("%skey %q given twice (as %q and %q: names match regardless of case): which value wins is up to the reader", at, jsonscan.Clip(o.Other), jsonscan.Clip(o.Other), jsonscan.Clip(o.Key))
		}
		return fmt.Errorf("%skey %q given twice: which value wins is up to the reader", at, jsonscan.Clip(o.Key))
	case jsonscan.KeyCase:
		return fmt.Errorf("%skey %q: unknown (keys are case-sensitive: did you mean %q?)", at, jsonscan.Clip(o.Key), o.Other)
	case jsonscan.LoneSurrogate:
		return fmt.Errorf("%sa lone UTF-16 surrogate %s: not a character, and texts that differ would read alike", at, o.Key)
	case jsonscan.InvalidUTF8:
		return fmt.Errorf("%sinvalid UTF-8 (byte 0x%02x): text must be UTF-8, or bytes that differ would read alike", at, o.Byte)
	}
	return fmt.Errorf("%srefused (%d)", at, o.Problem)
}
