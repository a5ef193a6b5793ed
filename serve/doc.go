// Package serve makes a trained policy usable from any stack: an HTTP/JSON
// service (what `mpdf serve` runs) that answers, per agent of a
// deliberation, persist, refine or concede.
//
// # Use
//
//	s, err := serve.New(serve.Config{PolicyPath: "runs/mpdf/best.mpdf"})
//	...
//	err = s.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx is done, then drains
//
// A Server is an http.Handler and can be mounted in another mux. Without
// HTTP, LoadPolicy (or NewPolicy for a network in memory) and
// Policy.Decide give the same decisions for the same DecideRequest.
//
// # API
//
// The routes and bodies are described in api/openapi.json, which
// TestOpenAPIMatchesTypes holds to the types of api.go:
//
//	POST /v1/decide   one deliberation (fields at the top level) or a batch
//	                  ("deliberations"); per agent the action, π(·|state),
//	                  log π(action), the answer decided on and the concede
//	                  target; per deliberation the team answer
//	GET  /v1/policy   the checkpoint header: step, seed, feature version,
//	                  SHA-256 of the training configuration, sizes, the
//	                  confidence source and the server's critic setting
//	POST /v1/reload   re-read the policy file (as SIGHUP does in mpdf serve)
//	GET  /healthz     liveness
//	GET  /readyz      503 without a policy or while shutting down
//	GET  /metrics     Prometheus: mpdf_serve_requests_total{route,code},
//	                  mpdf_serve_request_duration_seconds{route},
//	                  mpdf_serve_decisions_total{action},
//	                  mpdf_serve_errors_total{kind}, mpdf_serve_inflight_requests,
//	                  mpdf_serve_reloads_total{result},
//	                  mpdf_serve_memory_reserved_bytes
//
// # Decisions
//
// Features are those of the layout the policy file records
// (metapolicy.FeaturizerFor; the version travels in every response),
// computed a deliberation at a time by the layout's team featurizer:
// metapolicy.FeaturizeTeam for mpdf-features/v1, FeaturizeTeamV2 for
// mpdf-features/v2, which also reads the request's optional history (nil
// when absent, which v2 encodes as unknown); both write rows bit-identical
// to their one-agent featurizer. The network runs on nn's batched float32
// kernels, so that a
// large batch costs little more per decision than the features; the draw
// and its tie rules are metapolicy.Sample's and Greedy's. Probabilities
// agree with metapolicy.MLPPolicy to about 1e-6 (float32 kernels with a
// rational tanh, against float64 sums), and a deliberation decides the same,
// bit for bit, alone or anywhere in a batch. Greedy mode takes the most
// probable action (lowest index on ties); sample mode draws deliberation i
// of a request from PCG(seed, i), its agents in order.
//
// An agent given as raw text is read by the transcript importer's answer
// and profile reader (readText, the one place to change it). With
// Config.Critic (mpdf serve --critic; DecideOptions.Critic without HTTP),
// such an agent without a confidence gets the critic's read from the text
// (answer.Read's Critic), the value a replay with critic=on gives the same
// text: TestCriticServeMatchesReplay holds the served decisions to the
// policy's on the replay's states. PolicyInfo.ConfidenceSource says where
// the policy's training confidence came from (checkpoints.ConfidenceSource,
// or a safetensors file's mpdf.confidence_source); when it disagrees with
// Config.Critic the server still serves, logs a warning at load and reload,
// and lists it in PolicyInfo.Warnings (GET /v1/policy).
//
// # Cost of a request
//
// A request body is decoded by a hand-written parser for the plain shape
// clients send (history included), and by encoding/json for anything else
// (escapes, nulls, odd numbers, unknown keys), whose answers and error
// messages are the reference: TestDecodePathsAgree and FuzzDecodePaths hold
// the two paths to the same decisions or the same error on valid, broken
// and random bodies. The handler decodes, validates and decides in a pooled
// arena (its strings are substrings of one copy of the body) and writes the
// response by hand, so that a single greedy deliberation of 3 agents
// allocates 4 times (the body's copy and one per agent in
// metapolicy.Greedy) besides what net/http allocates;
// TestHandlerAllocations holds it there. Policy.Decide, whose
// response the caller keeps, allocates its own.
//
// The load benchmarks (bench_test.go, bench_rate_test.go) run a server
// and its clients on loopback in one process: BenchmarkServeSingle is
// closed-loop at saturation (64 clients, each waiting for its answer: its
// latency is mostly queueing, 64 / throughput), BenchmarkServeRate is
// open-loop (wrk2's method: 64 connections offered a fixed rate, each
// request timed from its scheduled send, so a stall counts against every
// request it delays). The garbage collector's target is the process's
// (GOGC, or mpdf serve --gogc): the library does not set it.
//
// # Limits and failure
//
// Nothing is kept between requests but the policy, so replicas scale out
// behind any load balancer. Reload swaps the policy atomically: a request
// runs on the policy it loaded when it started, and a file that fails to
// load leaves the previous policy serving. Every error is a JSON ErrorBody
// naming the field ("agents[2].confidence: 1.4 outside [0,1]"). A body over
// Config.MaxBodyBytes gets 413, a team over MaxAgents or a batch over
// MaxDeliberations 400, more than Config.MaxInflight decide requests at
// once 429 (health checks and metrics are not limited), a body slower than
// Config.ReadTimeout 408 (a slow client holds its slot until then). The
// decoder stops at the first array past MaxAgents or MaxDeliberations, so a
// body of bare "{}" cannot decode to a hundred times its size
// (TestDecodeStopsAtLimits). Config.Validate refuses a negative limit or
// timeout, naming its flag, rather than take the default.
//
// Bodies are held to the rollout reader's strictness (strict.go, through
// internal/jsonscan.Check, data's walk): a key given twice or in another
// case, null where an object or array belongs, invalid UTF-8 or nesting
// deeper than a request get 400 naming the field (TestStrictRequests).
//
// Memory: a decide request is measured by that same walk before it is
// decoded, and its estimated memory (budget.go: per body byte, per JSON
// value, per byte of agents' text, factors measured on the worst shapes by
// TestRequestCostBounds) is reserved from Config.MaxMemory for as long as
// its work runs; 503 with Retry-After when the requests in flight leave too
// little, 413 when it alone could not fit. Responses are streamed as they
// are encoded and bounded by MaxResponseBytes (413 beyond: long answers are
// repeated as concede targets). TestServeMemoryBudget sends 16 of each
// worst shape at once to a server process and checks that each gets a
// status and the peak RSS stays under the budget. An idle server gives a
// burst's memory back to the system.
//
// Time: a decide request is answered 503 (kind timeout, Retry-After) at
// Config.RequestTimeout, before the write timeout would cut the connection
// without a status. Its work runs on a goroutine of its own (the handler
// answers at the deadline whatever the work is doing) unless the body is
// small (≤ 64 KiB) and has no text, whose work checks the deadline every
// few microseconds on the handler's goroutine. The work stops at its next
// check of the deadline (every 8 deliberations), and when the client goes away
// (counted as 499 in /metrics, never sent). Both are logged
// (TestRequestTimeout, TestClientGoneStopsWork). Serve drains the requests
// in flight when its context ends.
package serve
