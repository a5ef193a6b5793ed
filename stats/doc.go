// Package stats holds the few statistics the evaluations need, in plain Go
// with no dependencies: percentile bootstrap intervals that resample whole
// clusters of observations ([Bootstrap]), and the area under the ROC curve
// ([AUC]).
//
//	b := stats.Bootstrap{Resamples: 2000, Level: 0.95, Seed: 1}
//	iv, err := b.Mean(correct, taskOf)       // accuracy, clustered by task
//	d, err := b.PairedDiff(learned, baseline, questionOf)
//
// # Why clusters
//
// An evaluation scores several episodes of one task (several seeds, several
// sampled episodes), and a study scores one question in several transcript
// files. Those observations are correlated: treating them as independent
// (a Wilson or normal interval over all episodes) makes an interval too
// narrow. The cluster bootstrap draws whole clusters — every observation of
// a task or question together — with replacement, as many as there are,
// and recomputes the statistic on each draw; the interval is the middle
// Level share of those recomputed statistics (the percentile method).
//
// The statistic of a mean ([Bootstrap.Mean]) is the ratio estimator Σ x / n
// over the drawn clusters' observations (a large cluster weighs as much as
// its observations), and the statistic of a paired difference
// ([Bootstrap.PairedDiff]) is the same over x − y, observation by
// observation: a paired comparison keeps each pair's correlation (both
// policies played on the same task with the same seed).
//
// # Determinism
//
// Bootstrap.Seed seeds a PCG stream; the same seed, data and order of
// observations give the same interval, bit for bit. Clusters are numbered
// in order of first appearance, so the labels' values do not matter, only
// which observations share one.
package stats
