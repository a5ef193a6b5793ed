package llm

// The prompts.
//
// Solve and refine are LLM-Debate's (Du et al.), word for word, as in the
// public transcripts (a test checks arithmetic's against one); Q is the
// question, S a solution, A an answer. LLM-Debate has no MATH task: math
// asks as gsm does, for "a simplified LaTeX expression" in the box.
//
//	solve, gsm:  Can you solve the following math problem? Q Explain your reasoning. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.
//	solve, mmlu: Can you answer the following question as accurately as possible? Q Explain your answer, putting the answer in the form (X) at the end of your response.
//	refine:      These are the solutions to the problem from other agents: ⏎⏎ One agent solution: ```S``` (once per peer), then
//	  gsm:       ⏎⏎ Using the solutions from other agents as additional information, can you provide your answer to the math problem? ⏎ The original math problem is Q. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.
//	  mmlu:      ⏎⏎ Using the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that other agents step by step. Put your answer in the form (X) at the end of your response.
//	solve, arithmetic: Q Make sure to state your answer at the end of the response.
//	solve, math: as gsm, with "a simplified LaTeX expression" for "a single numerical number"
//	refine, arithmetic: These are the recent/updated opinions from other agents: ⏎⏎ One agent response: ```S``` (once per peer), then
//	             ⏎⏎ Use these opinions carefully as additional advice, can you provide an updated answer? Make sure to state your answer at the end of the response.
//	refine, math: as gsm, with "a simplified LaTeX expression" for "a single numerical number"
//	concede:     This is the solution to the problem from another agent, whose answer you now adopt: ```S```⏎⏎ Restate this solution in your own words. Your final answer must be A, in the form \boxed{answer}, at the end of your response.   (mmlu: "must be (A), in the form (X) at the end"; arithmetic: "must be A. Make sure to state your answer at the end of the response.")
//	judge:       Here is a problem and a proposed solution.⏎⏎Problem: Q⏎⏎Proposed solution: ```S```⏎⏎How likely is it that the final answer of the proposed solution is correct? Rate it from 0 (certainly wrong) to 100 (certainly correct). Reply with a single line of the form "Confidence: N".
//
// (⏎ is a newline; SolvePrompt, RefinePrompt, ConcedePrompt and
// JudgePrompt build them.) Solutions shown in prompts have their
// <think>…</think> blocks removed.

import (
	"strings"

	"github.com/mpdf/mpdf/answer"
)

// Kinds names the task kinds, in the order help texts name them.
var Kinds = []string{string(answer.GSM8K), string(answer.MMLU), string(answer.Arithmetic), string(answer.Math)}

// prompts are the words of one task kind: %Q stands for the question, %S
// for a solution, %A for an answer. The refine prompt is prefix, then
// peer once per peer, then refine.
type prompts struct {
	solve, prefix, peer, refine, concede string
}

// The prompts of Du et al.'s LLM-Debate (their gsm, mmlu and math —
// arithmetic — scripts), word for word, so that episodes collected here
// read like the public debate transcripts. LLM-Debate has no MATH task:
// math asks as gsm does, for a simplified LaTeX expression in the box
// answer.ExtractMath reads first. Concede has no LLM-Debate counterpart
// (Options.ConcedeCall).
var kindPrompts = map[answer.Kind]prompts{
	answer.GSM8K: {
		solve:   `Can you solve the following math problem? %Q Explain your reasoning. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.`,
		prefix:  solutionsPrefix,
		peer:    solutionPeer,
		refine:  "\n\n Using the solutions from other agents as additional information, can you provide your answer to the math problem? \n The original math problem is %Q. Your final answer should be a single numerical number, in the form \\boxed{answer}, at the end of your response.",
		concede: concedePrefix + "Your final answer must be %A, in the form \\boxed{answer}, at the end of your response.",
	},
	answer.MMLU: {
		solve:   `Can you answer the following question as accurately as possible? %Q Explain your answer, putting the answer in the form (X) at the end of your response.`,
		prefix:  solutionsPrefix,
		peer:    solutionPeer,
		refine:  "\n\n Using the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that other agents step by step. Put your answer in the form (X) at the end of your response.",
		concede: concedePrefix + "Your final answer must be (%A), in the form (X) at the end of your response.",
	},
	answer.Arithmetic: {
		solve:   `%Q Make sure to state your answer at the end of the response.`,
		prefix:  `These are the recent/updated opinions from other agents: `,
		peer:    "\n\n One agent response: ```%S```",
		refine:  "\n\n Use these opinions carefully as additional advice, can you provide an updated answer? Make sure to state your answer at the end of the response.",
		concede: concedePrefix + "Your final answer must be %A. Make sure to state your answer at the end of the response.",
	},
	answer.Math: {
		solve:   `Can you solve the following math problem? %Q Explain your reasoning. Your final answer should be a simplified LaTeX expression, in the form \boxed{answer}, at the end of your response.`,
		prefix:  solutionsPrefix,
		peer:    solutionPeer,
		refine:  "\n\n Using the solutions from other agents as additional information, can you provide your answer to the math problem? \n The original math problem is %Q. Your final answer should be a simplified LaTeX expression, in the form \\boxed{answer}, at the end of your response.",
		concede: concedePrefix + "Your final answer must be %A, in the form \\boxed{answer}, at the end of your response.",
	},
}

const (
	solutionsPrefix = `These are the solutions to the problem from other agents: `
	solutionPeer    = "\n\n One agent solution: ```%S```"
	concedePrefix   = "This is the solution to the problem from another agent, whose answer you now adopt: ```%S```\n\n Restate this solution in your own words. "
	judge           = "Here is a problem and a proposed solution.\n\nProblem: %Q\n\nProposed solution: ```%S```\n\nHow likely is it that the final answer of the proposed solution is correct? Rate it from 0 (certainly wrong) to 100 (certainly correct). Reply with a single line of the form \"Confidence: N\"."
)

// noAnswer stands in for an empty solution inside a prompt.
const noAnswer = "(no answer)"

// fill substitutes the placeholders of a prompt. Substitution is one pass,
// so a question that happens to contain "%S" is left alone.
func fill(tmpl, question, solution, answer string) string {
	return strings.NewReplacer("%Q", question, "%S", solution, "%A", answer).Replace(tmpl)
}

// promptsOf is the prompts of a task kind; gsm8k's for a kind it does not
// know (Task.check admits none).
func promptsOf(kind answer.Kind) prompts {
	if p, ok := kindPrompts[kind]; ok {
		return p
	}
	return kindPrompts[answer.GSM8K]
}

// SolvePrompt is the round-0 prompt for a task.
func SolvePrompt(kind answer.Kind, question string) string {
	return fill(promptsOf(kind).solve, question, "", "")
}

// RefinePrompt is the user message that follows an agent's own previous
// answer when it refines: the peers' solutions, in agent order, then the
// instruction.
func RefinePrompt(kind answer.Kind, question string, peers []string) string {
	p := promptsOf(kind)
	var b strings.Builder
	b.WriteString(p.prefix)
	for _, s := range peers {
		if strings.TrimSpace(s) == "" {
			s = noAnswer
		}
		b.WriteString(fill(p.peer, "", s, ""))
	}
	b.WriteString(fill(p.refine, question, "", ""))
	return b.String()
}

// ConcedePrompt is the user message that follows an agent's own previous
// answer when it concedes with a call: the adopted solution and its answer.
func ConcedePrompt(kind answer.Kind, solution, ans string) string {
	if strings.TrimSpace(solution) == "" {
		solution = noAnswer
	}
	return fill(promptsOf(kind).concede, "", solution, ans)
}

// JudgePrompt asks the model to score a solution's correctness: the
// judge call, whose reply ParseConfidence reads.
func JudgePrompt(question, solution string) string {
	if strings.TrimSpace(solution) == "" {
		solution = noAnswer
	}
	return fill(judge, question, solution, "")
}
