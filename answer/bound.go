package answer

import "unicode/utf8"

// The caps on what Read reads. Every text is untrusted — a model can emit
// anything and the server faces the network — so reading is linear in the
// text with these constants, whatever its shape: one pass finds the boxes
// (not one scan per box); numbers, stated answers ("answer is (B)", "The
// answer is"), stated confidences and the closing sentences are scanned
// without regular expressions (Go's backtracker clears a bitmap of the
// rest of the text at each match); numbers are written from their text;
// the profile reads the whole text, in one pass per measure. None of the
// caps changes how a shared transcript reads (TestReadSharedUnchanged),
// but for the critic on two peer-solution prompts of 74 KiB, which are no
// answer; BenchmarkReadAdversarial, TestReadWorkLinear and FuzzRead hold
// the rest to linear work.
const (
	// MaxAnswerBytes is how much of a text's answer part (the text after
	// its reasoning block) the answer is read from: its last 64 KiB.
	// Models state the answer at the end: 13 shared texts are longer (up
	// to 133 KiB) and read the same.
	MaxAnswerBytes = 64 << 10
	// MaxBoxes is how many \boxed{} an answer is looked for in, from the
	// last: a box nested in a box is one more. Earlier boxes are not read.
	MaxBoxes = 16
	// MaxBoxBytes is how much of a box is read: its first 4 KiB (a box left
	// open runs to the end of the text, and a final answer is short).
	MaxBoxBytes = 4 << 10
	// MaxQuotientBytes bounds the text a fraction "a/b" (or "a/b/c") of
	// plain numbers is divided over: a longer one stays separate numbers,
	// so that no division costs more than a few machine words. Plain
	// numbers of any length are read exactly (as text).
	MaxQuotientBytes = 64
	// MaxCriticBytes is how much of a text the critic checks: its last
	// 64 KiB, reasoning block included. Its tokens take 32 bytes a byte
	// at worst, so a read allocates a few MB at most, whatever the text.
	MaxCriticBytes = 64 << 10
	// MaxQuestionBytes is how much of a question Choices reads its options
	// from: its last 16 KiB (the template puts them at the end).
	MaxQuestionBytes = 16 << 10
)

// tail returns the last n bytes of s, starting on a rune boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for k := 0; k < utf8.UTFMax && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i++
	}
	return s[i:]
}

// head returns the first n bytes of s, ending on a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for k := 0; k < utf8.UTFMax && i > 0 && !utf8.RuneStart(s[i]); k++ {
		i--
	}
	return s[:i]
}

// workMeter, when a test sets it, counts the work of reading: the bytes
// each pass over a text is handed (a regular expression, a scanner), and
// the tokens the critic's parser visits. Tests hold it to a constant times
// the text's length; it is nil otherwise, and never set concurrently.
var workMeter *int

// work adds n to the meter.
func work(n int) {
	if workMeter != nil {
		*workMeter += n
	}
}
