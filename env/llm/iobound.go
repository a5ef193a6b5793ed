package llm

// IOBound implements env.IOBound: a game waits on the model's answers, so
// env.Play plays each worker's episodes one at a time (no batches held back
// for their slowest episode), as before batched play.
func (e *Env) IOBound() bool { return true }
