// Package view writes deliberations as one self-contained HTML page: per
// question the gold answer, each policy's rounds side by side (per agent
// the answer, the action with the policy's probabilities, confidence,
// tokens and, on demand, the text) and the team answer per round, right
// or wrong; with a summary of each policy scored by env.Tally (the numbers
// mpdf eval prints) and lists filtered (policies disagree, A won or lost
// against B, model, kind, text) and sorted (tokens) by a small embedded
// script. It also writes a training run's page (WriteRun): the curves of
// metrics.jsonl as inline SVG, the final evaluation and verdict, and the
// checkpoint's provenance.
//
// # Guarantees
//
// The page loads nothing: its Content-Security-Policy blocks the network,
// and it names no URL. Every model text is untrusted: the HTML around the
// data is html/template's, escaped; the questions travel as JSON that
// json.Marshal escapes (<, > and & in every string) and then gzip and
// base64 (pack.go), so neither "</script>" nor "<!--" can appear in a data
// island; the script puts every text into the page with textContent, never
// as markup. Texts are cut to MaxTextBytes, names and answers to 200
// bytes. A page over its size budget is refused rather than written. The
// summary is env.Tally's, the numbers of mpdf eval (a test compares them).
//
// # Size and speed
//
// The budget is DefaultMaxBytes, 5 MiB (5,242,880 bytes): a mail
// attachment. What keeps a large page within it and usable:
//
//   - one row per question (a task of one transcript file), each policy's
//     episodes in it; names shared by rows (models, kinds, sources) listed
//     once and referred to by index;
//   - texts stored once: the policies replaying a transcript share its
//     recorded texts, and every text is listed once and referred to by
//     index (an episode's Source names its own file: env.TaskSourcer);
//   - compact rows (a turn is a JSON array of six values), gzip-compressed
//     (texts repeat across rounds) and base64-encoded;
//   - in the document only the visible page of 50 rows; a row's rounds are
//     built when it is opened; filtering and sorting work on the unpacked
//     arrays, not on elements.
//
// Measured on 2026-12-01 on 2 cores shared with other jobs (load average
// about 20), the largest case: every shared transcript (47 files, 13
// models, 2,450 questions) under five policies (a checkpoint trained on
// them, gate, majority, debate, until-consensus): 12,250 episodes, 96,865
// turns, 19,018 distinct texts:
//
//	mpdf view --env 'replay:../shared/data/debates/slm-debate/*/*.json,../shared/data/debates/more/*/*.json' \
//	    --policy RUN/best.mpdf,gate,majority,debate,until-consensus --split all --out big.html
//
// The page is 4,688,533 bytes, 89% of the budget: the texts 4.12 MB (16.8
// MB of JSON before compression), the rows 0.56 MB (4.6 MB of JSON).
// Writing it takes 14 s (median of 3; 270 MB resident). In headless
// Chromium 156 (file://, medians of 5 loads) the first page of rows is
// drawn 0.53 s after the start, the texts are unpacked at 1.26 s, the
// document holds 1,159 elements, and a filter (model, kind, disagree, won,
// text), a sort or a page turn is drawn within 18–44 ms. The page this
// package wrote before packing, in the same run: 17,308,483 bytes without
// a single text of the replay (over the budget), 12 s to write, 6.2 s to
// load, 689,633 elements, 0.80 s for a filter and 2.4 s for a sort.
package view
