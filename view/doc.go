// Package view writes deliberations as one self-contained HTML page — per
// question the gold answer, each policy's rounds side by side (per agent
// the answer, the action with the policy's probabilities, confidence,
// tokens and, on demand, the text) and the team answer per round — and a
// training run's and a study's pages. What mpdf view writes:
//
//	eps, err := view.Read([]string{"runs/*.jsonl.zst"}, 0)  // episodes from files
//	err = view.WriteFile("deliberations.html", view.Group(eps), view.Options{})
//
//	runs, err := view.Play(e, policies, env.RunOptions{Seed: 1}) // or play policies now
//	err = view.WriteFile("replay.html", runs, view.Options{})
//
// [Read] and [Group] make a [Run] per policy from episode files; [Play]
// plays policies on an environment and keeps each action's full
// distribution. The page has a summary of each policy scored by env.Tally
// (the numbers mpdf eval prints; a strip of bars and a table) and lists,
// each question's line showing its opening words and every policy's
// outcome and tokens, filtered (policies disagree, A won or lost against
// B, model, kind, words of the question or its ids) and sorted (tokens)
// by a small embedded script. [WriteRunPage] writes a training run's page ([WriteRun]:
// the verdict as a sentence and an accuracy–tokens chart, the held-out
// points per RL iteration and the smoothed curves of metrics.jsonl as
// inline SVG, the final evaluation, the checkpoint's provenance as
// tables, a link to the run's view.html); [WriteRunsIndex] the runs under
// a directory side by side (mpdf runs); [WriteReport] a study's
// report.html, opening with its verdict per λ.
//
// # Guarantees
//
// The page loads nothing: its Content-Security-Policy blocks the network,
// and it names no URL. Every model text is untrusted: the HTML around the
// data is html/template's, escaped; the questions travel as JSON that
// json.Marshal escapes (<, > and & in every string) and then gzip and
// base64, so neither "</script>" nor "<!--" can appear in a data island;
// the script puts every text into the page with textContent, never as
// markup. Texts are cut to [MaxTextBytes], names and answers to 200
// bytes. A page over its size budget ([Options].MaxBytes,
// [DefaultMaxBytes], 5 MiB: a mail attachment) is refused ([ErrOverBudget])
// rather than written; the largest case measured, every shared transcript
// under five policies, is 91% of it (pack.go has the sizes and times).
package view
