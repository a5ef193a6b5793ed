package transcript_test

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/data/transcript"
)

// Each reads a transcript one question at a time; ToEpisode turns a
// question into the episode the debate was: round 0 as recorded, every
// later round a refine by every agent.
func ExampleEach() {
	// LLM-Debate's layout: question → [agent chats, gold]. Two agents, two
	// answers each: round 0 and one deliberation round.
	const file = `{"What is 6 * 7?": [[
		[{"role": "user", "content": "What is 6 * 7?"}, {"role": "assistant", "content": "6 * 7 = 42. \\boxed{42}"},
		 {"role": "user", "content": "Other agents said 41."}, {"role": "assistant", "content": "Still \\boxed{42}"}],
		[{"role": "user", "content": "What is 6 * 7?"}, {"role": "assistant", "content": "\\boxed{41}"},
		 {"role": "user", "content": "Another agent said 42."}, {"role": "assistant", "content": "6 * 7 = 42, so \\boxed{42}"}]
	], "42"]}`
	rep, err := transcript.Each(strings.NewReader(file), "gsm_2_2.json", transcript.Options{}, func(q *transcript.Question) error {
		ep := transcript.ToEpisode(q, transcript.EpisodeOptions{})
		fmt.Println(q.ID, q.Task, "gold", q.Gold, "rounds", q.Rounds())
		for t, r := range ep.Rounds {
			fmt.Printf("round %d:", t)
			for _, turn := range r.Turns {
				act := "-"
				if turn.Action != nil {
					act = turn.Action.String()
				}
				fmt.Printf(" %s %s;", act, turn.Answer)
			}
			fmt.Println()
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Questions, "question read")
	// Output:
	// gsm8k:e3304f3cff44 gsm8k gold 42 rounds 1
	// round 0: - 42; - 41;
	// round 1: refine 42; refine 42;
	// 1 question read
}
