package llm

import (
	"strings"
)

// Task kinds: what the question asks for and how its answer is written.
const (
	KindGSM  = "gsm"  // a number, written \boxed{N} (GSM8K and other math word problems)
	KindMMLU = "mmlu" // a letter among the options, written (X)
)

// The prompts of Du et al.'s LLM-Debate (their gsm and mmlu scripts), word
// for word, so that episodes collected here read like the public debate
// transcripts. %Q stands for the question, %P for the peers' solutions.
const (
	solveGSM  = `Can you solve the following math problem? %Q Explain your reasoning. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.`
	solveMMLU = `Can you answer the following question as accurately as possible? %Q Explain your answer, putting the answer in the form (X) at the end of your response.`

	refinePrefix = `These are the solutions to the problem from other agents: `
	refinePeer   = "\n\n One agent solution: ```%S```"
	refineGSM    = "\n\n Using the solutions from other agents as additional information, can you provide your answer to the math problem? \n The original math problem is %Q. Your final answer should be a single numerical number, in the form \\boxed{answer}, at the end of your response."
	refineMMLU   = "\n\n Using the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that other agents step by step. Put your answer in the form (X) at the end of your response."
)

// The prompts LLM-Debate has no counterpart for: conceding with a call
// (Options.ConcedeCall) and the critic that scores confidence.
const (
	concedeGSM  = "This is the solution to the problem from another agent, whose answer you now adopt: ```%S```\n\n Restate this solution in your own words. Your final answer must be %A, in the form \\boxed{answer}, at the end of your response."
	concedeMMLU = "This is the solution to the problem from another agent, whose answer you now adopt: ```%S```\n\n Restate this solution in your own words. Your final answer must be (%A), in the form (X) at the end of your response."
	critic      = "Here is a problem and a proposed solution.\n\nProblem: %Q\n\nProposed solution: ```%S```\n\nHow likely is it that the final answer of the proposed solution is correct? Rate it from 0 (certainly wrong) to 100 (certainly correct). Reply with a single line of the form \"Confidence: N\"."
)

// noAnswer stands in for an empty solution inside a prompt.
const noAnswer = "(no answer)"

// fill substitutes the placeholders of a prompt. Substitution is one pass,
// so a question that happens to contain "%S" is left alone.
func fill(tmpl, question, solution, answer string) string {
	return strings.NewReplacer("%Q", question, "%S", solution, "%A", answer).Replace(tmpl)
}

// SolvePrompt is the round-0 prompt for a task.
func SolvePrompt(kind, question string) string {
	if kind == KindMMLU {
		return fill(solveMMLU, question, "", "")
	}
	return fill(solveGSM, question, "", "")
}

// RefinePrompt is the user message that follows an agent's own previous
// answer when it refines: the peers' solutions, in agent order, then the
// instruction.
func RefinePrompt(kind, question string, peers []string) string {
	var b strings.Builder
	b.WriteString(refinePrefix)
	for _, p := range peers {
		if strings.TrimSpace(p) == "" {
			p = noAnswer
		}
		b.WriteString(fill(refinePeer, "", p, ""))
	}
	if kind == KindMMLU {
		b.WriteString(refineMMLU)
	} else {
		b.WriteString(fill(refineGSM, question, "", ""))
	}
	return b.String()
}

// ConcedePrompt is the user message that follows an agent's own previous
// answer when it concedes with a call: the adopted solution and its answer.
func ConcedePrompt(kind, solution, answer string) string {
	if strings.TrimSpace(solution) == "" {
		solution = noAnswer
	}
	if kind == KindMMLU {
		return fill(concedeMMLU, "", solution, answer)
	}
	return fill(concedeGSM, "", solution, answer)
}

// CriticPrompt asks the model to score a solution's correctness.
func CriticPrompt(question, solution string) string {
	if strings.TrimSpace(solution) == "" {
		solution = noAnswer
	}
	return fill(critic, question, solution, "")
}
