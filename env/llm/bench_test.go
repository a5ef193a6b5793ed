package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
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
			req := userMsg(SolvePrompt(KindGSM, strings.Repeat("How many apples? ", 20)))
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
