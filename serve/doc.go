// Package serve answers, for each agent of a deliberation, persist, refine
// or concede, from a trained policy: an HTTP/JSON service (what mpdf serve
// runs), and the same decisions without HTTP.
//
// # Serving a policy
//
//	s, err := serve.New(serve.Config{PolicyPath: "runs/mpdf/best.mpdf"})
//	...
//	err = s.ListenAndServe(ctx, "127.0.0.1:8080") // until ctx is done, then drains
//
// A [Server] is an [net/http.Handler] and can be mounted in another mux (see
// the example); [Server.Reload] re-reads the policy file (as SIGHUP does in
// mpdf serve). Without HTTP, [LoadPolicy] (or [NewPolicy] for a network in
// memory) and [Policy.Decide] give the same decisions for the same
// [DecideRequest].
//
// # Routes
//
// api/openapi.json describes the routes and bodies (the types of api.go):
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
// A request gives each [Agent]'s answer and confidence, or the raw text of
// its last response, which package answer reads as the transcript importer
// does. Greedy mode ([DecideRequest].Mode) takes the most probable action;
// sample mode draws deliberation i of a request from PCG(seed, i). With
// [Config].Critic (mpdf serve --critic), an agent given as text without a
// confidence gets the critic's read from the text, for a policy trained on a
// replay with critic=on; [PolicyInfo].Warnings says when the policy's
// training confidence ([PolicyInfo].ConfidenceSource) disagrees.
//
// # Limits
//
// Nothing is kept between requests but the policy, so replicas scale out
// behind any load balancer. [Server.Reload] swaps the policy atomically: a
// request runs on the policy it started with, and a file that fails to
// load leaves the previous one serving. Every error is a JSON [ErrorBody]
// naming the field ("agents[2].confidence: 1.4 outside [0,1]"). Each limit
// — body size, team ([MaxAgents]) and batch ([MaxDeliberations]), requests
// in flight, read and request timeouts, memory budget — says its status
// code beside its [Config] field; [Config.Validate] refuses a negative
// one, naming its flag, rather than take the default.
package serve
