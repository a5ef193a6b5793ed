package serve

import "testing"

func BenchmarkZZHandlerBatch(b *testing.B) { benchHandler(b, benchBody(b, 256)) }
