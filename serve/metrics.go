package serve

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mpdf/mpdf/metapolicy"
)

// metrics are the server's Prometheus series, in a registry of its own so
// that two servers in one process do not collide.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec   // route, code
	latency   *prometheus.HistogramVec // route
	decisions [metapolicy.NumActions]prometheus.Counter
	errors    *prometheus.CounterVec // kind
	inflight  prometheus.Gauge
	reserved  prometheus.Gauge       // bytes of the memory budget reserved
	reloads   *prometheus.CounterVec // result
	conns     prometheus.Gauge       // open connections
	evicted   prometheus.Counter     // connections closed to make room at the cap
	handler   http.Handler
	// The series of a successful decide, resolved once: the label lookup
	// hashes and allocates, and this is the request served most.
	decideOK      prometheus.Counter
	decideLatency prometheus.Observer
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mpdf_serve_requests_total", Help: "HTTP requests by route and status code.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "mpdf_serve_request_duration_seconds", Help: "Time from request start to the last byte written, by route.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	dec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mpdf_serve_decisions_total", Help: "Agent decisions made, by action.",
	}, []string{"action"})
	for _, a := range metapolicy.Actions {
		m.decisions[a] = dec.WithLabelValues(a.String())
	}
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mpdf_serve_errors_total", Help: "Requests answered with an error, by kind (the kind field of the error body; cut_short: a decide response whose body was cut after its 200, recorded under code 599, or 499 when the client left).",
	}, []string{"kind"})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "mpdf_serve_inflight_requests", Help: "Decide requests being served.",
	})
	m.reserved = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "mpdf_serve_memory_reserved_bytes", Help: "Bytes of the memory budget (--max-memory-mib) reserved by the decide requests being served, abandoned ones included until their work stops.",
	})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mpdf_serve_reloads_total", Help: "Policy reloads, by result (ok, failed).",
	}, []string{"result"})
	m.conns = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "mpdf_serve_connections", Help: "Open HTTP connections (at most --max-conns).",
	})
	m.evicted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "mpdf_serve_connections_evicted_total", Help: "Connections closed at the connection cap to make room for a new one: the one idle longest, else a new one slow to send its headers.",
	})
	m.reg.MustRegister(m.requests, m.latency, dec, m.errors, m.inflight, m.reserved, m.reloads, m.conns, m.evicted,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.decideOK = m.requests.WithLabelValues(routeDecide, "200")
	m.decideLatency = m.latency.WithLabelValues(routeDecide)
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// observe records one finished request.
func (m *metrics) observe(route string, code int, seconds float64) {
	if route == routeDecide && code == http.StatusOK {
		m.decideOK.Inc()
		m.decideLatency.Observe(seconds)
		return
	}
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route).Observe(seconds)
}
