// Package mpdf learns how a team of LLM agents should deliberate: a small,
// decentralised meta-policy that, each round, lets every agent persist,
// refine or concede, trained with SoftRankPO ("Learning to Deliberate",
// Yang & Thomason, 2025).
//
// The root package holds no code, only the architecture test and the
// benchmarks of the update loop. The layers, bottom up:
//
//	nn          MLP parameters, Adam, fast batched kernels of the update step
//	autodiff    the same model and loss as a Gorgonia graph (the reference)
//	metapolicy  actions, meta-cognitive state, featurizer, policies
//	data        rollout formats, reader/writer, reward, packed shards
//	env         deliberation environments (simulator, replay) and evaluation
//	trainer     advantages, SFT and SoftRankPO loops, metrics
//	checkpoints the compressed checkpoint format and safetensors interop
//	cmd/mpdf    the command line: flags and wiring
package mpdf
