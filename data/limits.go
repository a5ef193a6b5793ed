package data

// MaxTextBytes caps one string of a rollout record (a turn's text, a
// prompt, a question, an answer) and, in package transcript, one string of
// a transcript, as written in the JSON between its quotes (escapes
// counted, so that a reader can stop at the limit while streaming). The longest text
// of the shared real transcripts is 136 KB (a reasoning model's answer);
// 4 MiB is some 30 times that, about a million tokens, more than any
// model's context window holds. A longer string is rejected with its path
// and the limit: it is a runaway generation or hostile input, and every
// string read is later held, hashed or parsed.
const MaxTextBytes = 4 << 20
