package answer_test

import (
	"fmt"

	"github.com/mpdf/mpdf/answer"
)

// Read gives the answer a text states, normalised, with the text's
// reasoning profile; an MMLU answer is a letter.
func ExampleRead() {
	text := "Each box holds 12 eggs, so 3 * 12 = 36.\nThe answer is \\boxed{36}."
	r := answer.Read(answer.GSM8K, text, answer.Options{})
	fmt.Println(r.Answer, r.Profile.Steps, r.Profile.Tokens)

	r = answer.Read(answer.MMLU, "Option A is wrong; so the answer is (C).", answer.Options{})
	fmt.Println(r.Answer)
	// Output:
	// 36 2 17
	// C
}

// Critic checks the arithmetic a text states: the share of its equations
// that hold, and whether it found any to check.
func ExampleCritic() {
	fmt.Println(answer.Critic(answer.GSM8K, "3 * 12 = 36 and 36 + 4 = 40, so \\boxed{40}."))
	fmt.Println(answer.Critic(answer.GSM8K, "3 * 12 = 38, so \\boxed{38}."))
	fmt.Println(answer.Critic(answer.GSM8K, "I am sure: \\boxed{40}."))
	// Output:
	// 1 true
	// 0 true
	// 0 false
}

// ParseKind reads a kind as a command line writes it; "gsm" is gsm8k.
func ExampleParseKind() {
	k, err := answer.ParseKind("GSM")
	fmt.Println(k, err)
	_, err = answer.ParseKind("trivia")
	fmt.Println(err)
	// Output:
	// gsm8k <nil>
	// answer: unknown kind "trivia" (want gsm8k, mmlu, arithmetic or math; gsm is gsm8k)
}
