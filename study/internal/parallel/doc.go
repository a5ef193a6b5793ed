// Package parallel runs a study's independent units of work (its cells,
// the stability study's runs) on a fixed number of goroutines: what
// study.CrossValidate, study/shards and study/ablate share. Each caller
// keeps unit i's result at index i, so that results do not depend on the
// number of workers.
package parallel
