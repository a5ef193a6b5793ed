// Package plots draws mpdf's figures as PNG: the training curves of a run
// (curve.png) and a study's accuracy-against-tokens plane (pareto.png).
// It owns gonum/plot, so that the packages that produce the numbers
// (trainer/run, study) hand over plain slices and never import a plotting
// library. Drawing is deterministic: the same numbers give the same bytes.
package plots
