package view

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// The page carries its questions as two JSON documents, the rows (model)
// and the texts, each gzip-compressed and base64-encoded in a JSON data
// island; the page's script unpacks them (DecompressionStream) and builds
// only the visible page of rows. Compression is what makes the large case
// fit its budget: the texts of a replay repeat across rounds and
// policies, and JSON's repeated keys cost nothing once compressed
// (the sizes below). Base64 has no character HTML or a script
// element could read as markup, and json.Marshal escapes <, > and & in
// every string, so neither "</script>" nor "<!--" can appear in the
// page's data; the script puts every text into the page as text
// (textContent), never as markup.
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
// about 20), the largest case: every shared transcript (47 files, 15
// models in 13 labels, 2,450 questions) under five policies (a checkpoint trained on
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

//
// Issue 37 put each question's opening words in its row (at most
// maxOpeningBytes, 200, so that the list shows them before the texts
// unpack) and took the probabilities out of deterministic rules' turns.
// Measured on 2026-12-07 (load average about 12), every shared transcript
// under a checkpoint of the default training (mpdf train --out RUN -q,
// best.mpdf 196a0d6a…; a checkpoint trained on the transcripts was not at
// hand), gate, majority, debate and until-consensus:
//
//	mpdf view --env 'replay:../shared/data/debates/slm-debate/*/*.json,../shared/data/debates/more/*/*.json' \
//	    --policy RUN/best.mpdf,gate,majority,debate,until-consensus --split all --out big.html
//
// the page is 4,767,810 bytes, 91% of the budget (4,604,572 before: +163
// kB; the rows island 0.71 MB, of which the openings are 0.43 MB of JSON
// before compression), written in 6.4 s. In headless Chromium (medians of
// 5 loads, both pages on the same loaded machine) the first rows are drawn
// at 1.35 s (1.32 s before), the texts unpacked at 4.3 s (3.7 s), and a
// search of the whole questions' text takes 9 ms (7 ms).

// pack is m's rows and texts, each as JSON, gzipped and base64-encoded.
func (m *model) pack() (rows, texts string, err error) {
	r, err := json.Marshal(m)
	if err != nil {
		return "", "", fmt.Errorf("view: %w", err)
	}
	t, err := json.Marshal(m.texts)
	if err != nil {
		return "", "", fmt.Errorf("view: %w", err)
	}
	if m.texts == nil {
		t = []byte("[]")
	}
	return zip64(r), zip64(t), nil
}

// zip64 is b gzipped (no name, no time: the same bytes every run) and
// base64-encoded.
func zip64(b []byte) string {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
	z.Write(b)                                              // a bytes.Buffer does not fail
	z.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// appendString appends s as a JSON string, <, > and & escaped.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
