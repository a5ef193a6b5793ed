// Package view writes deliberations as one self-contained HTML page: per
// question the gold answer, each policy's rounds side by side (per agent
// the answer, action and its probability, confidence, tokens and, on
// demand, the text) and the team answer per round, right or wrong; with a
// summary of each policy scored by env.Tally (the numbers mpdf eval
// prints) and lists filtered and sorted by a small embedded script.
//
// The page loads nothing from the network. Every model text is untrusted:
// html/template escapes it, and texts are cut to MaxTextBytes. A page over
// its size budget is refused rather than written.
package view
