// Package mpdf learns how a team of LLM agents should deliberate: a small,
// decentralised meta-policy that, each round, lets every agent persist,
// refine or concede, trained with SoftRankPO ("Learning to Deliberate",
// Yang & Thomason, 2025).
//
// The root package holds no code, only the architecture test and the
// benchmarks of the update loop. Each package imports only packages listed
// before it; imports_test.go holds the table and fails on any other edge.
//
// The layers, bottom up (generated from the table in imports_test.go):
//
//	internal/testenv          what tests need beyond Go (PyTorch oracle, shared transcripts, Chromium): skip locally, fail under CI
//	internal/browser          headless Chromium for the HTML pages' tests, over the DevTools protocol's pipe
//	internal/version          which build of mpdf runs: its module version and VCS revision, else the hash of its embedded sources
//	internal/errmark          an error marked with a sentinel (one may name a setting), its message unchanged, or a setting out of range named by its key: a library's errors a caller words
//	internal/progress         progress of long work on stderr: a bar on a terminal, plain lines elsewhere
//	internal/jsonscan         the byte-level JSON scanner of the fast paths (data's decision lines, serve's requests; transcripts' numbers)
//	internal/cliflag          the command line's flag machinery, no domain package: commands of flag structs, help files, the shared-flag table, binding, value adapters, errors in flag words
//	internal/peak             the machine's measured float32 multiply-add peak, for the update step's benchmarks' share of it
//	nn                        MLP parameters, Adam, fast batched CPU kernels of the update step
//	stats                     cluster-bootstrap confidence intervals and the AUC, plain Go
//	outfile                   output files replaced whole (temp file, sync, rename) and run-directory locks
//	plots                     the figures as PNG: training curves, a study's accuracy-against-tokens plane, curves as bands over seeds
//	autodiff                  the same model and loss as a Gorgonia graph: the reference for the kernels
//	metapolicy                actions, meta-cognitive state, consensus rules, featurizer, policies, baselines
//	answer                    one reader of model text: answers (gsm8k, mmlu, arithmetic, math) and profiles
//	data                      rollout formats (JSONL episodes/decisions), reader/writer, reward, packed shards
//	stats/correctness         how well each feature tells a right answer from a wrong one: its AUC over the decisions of episodes
//	checkpoints               compressed checkpoint format, retention, safetensors interop
//	data/transcript           reader of debate transcripts (LLM-Debate, DyLAN, LLM-Agora) into questions and episodes
//	data/corpus               what a set of transcripts holds: the corpus table, the persist and debate baselines
//	env                       the environment interface, the episode runner, evaluation and verdict
//	env/sim                   the calibrated simulator: the default environment, its parameters and their fit
//	env/sim/calibrate         the simulator fitted to transcripts and checked against them, statistics and feature signals
//	env/replay                recorded transcripts replayed as an environment, built from questions or files; the replay spec
//	env/llm                   live deliberations through an OpenAI-compatible chat-completions backend
//	env/open                  an --env spec (sim or replay) opened, a training run's two sides split, an evaluation set up with its checkpoints' defaults
//	trainer                   advantage estimators (SoftRankPO & ablations), update step, SFT and RL loops
//	trainer/run               a training run: stages, checkpoints and resume, run directory, metrics log, curve
//	trainer/teacher           hindsight search of the best joint plan per task; hindsight and pivotal labels
//	view                      deliberations and policies' decisions, a training run and a study's report, as self-contained HTML pages
//	study/internal/parallel   a study's independent cells or runs on a fixed number of goroutines, results by index
//	study                     cross-validated study of learned policies against the baselines: the plan and its cells, the rows, report, verdict and directory
//	study/compare             studies' results.json compared: per kind or model, paired across studies, hindsight ceilings
//	study/shards              a study's cells split between processes and merged back to the unsharded study's bytes
//	study/ablate              the ablations (settings cross-validated with the study's folds) and the stability study's curves
//	study/internal/studytest  what the tests of study's rooms share: a trainer that trains nothing, the shared transcripts
//	study/signals             AUC of state features for correctness and for "refining now fixes the team"
//	serve                     a trained policy as an HTTP/JSON service, with Prometheus metrics
//	cmd/mpdf                  the command line: flags, help text and wiring only
package mpdf
