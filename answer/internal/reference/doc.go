// Package reference is the answer reader as it was before reading was made
// linear-time (commit dad23c3), kept verbatim as the oracle that the
// bounded reader in package answer is held to: on every shared transcript
// and on every fuzzed text within the caps, both must read the same
// answer, profile and critic confidence. Only tests import it; it is
// quadratic on hostile text and must never read untrusted input.
package reference
