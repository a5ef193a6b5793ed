package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpdf/mpdf/answer"
)

// BenchmarkChat measures the client's own overhead against a loopback
// server that answers at once: encode, post, read, decode, per request.
func BenchmarkChat(b *testing.B) {
	for _, conc := range []int{1, 4} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			s := newFakeServer(b, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
				completion(w, req, `The answer is \boxed{42}.`)
			})
			c, err := NewClient(Config{BaseURL: s.url(), Model: "m", Concurrency: conc})
			if err != nil {
				b.Fatal(err)
			}
			req := userMsg(SolvePrompt(answer.GSM8K, strings.Repeat("How many apples? ", 20)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				var wg sync.WaitGroup
				for range conc {
					wg.Go(func() {
						if _, err := c.Chat(context.Background(), req); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				n += conc
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// BenchmarkChatReplicas measures what spreading buys against replicas that
// each serve one request at a time in 2 ms (a busy GPU, say): requests/s
// with 1, 2 and 3 endpoints, 6 requests in flight.
func BenchmarkChatReplicas(b *testing.B) {
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			var bases []string
			for range n {
				var busy sync.Mutex
				s := newFakeServer(b, func(w http.ResponseWriter, r *http.Request, _ int, req *wireRequest) {
					busy.Lock()
					time.Sleep(2 * time.Millisecond)
					busy.Unlock()
					completion(w, req, `The answer is \boxed{42}.`)
				})
				bases = append(bases, s.url())
			}
			c, err := NewClient(Config{BaseURLs: bases, Model: "m", Concurrency: 6})
			if err != nil {
				b.Fatal(err)
			}
			req := userMsg(SolvePrompt(answer.GSM8K, "How many apples?"))
			k := 0
			for b.Loop() {
				var wg sync.WaitGroup
				for range 6 {
					wg.Go(func() {
						if _, err := c.Chat(context.Background(), req); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
				k += 6
			}
			b.ReportMetric(float64(k)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
