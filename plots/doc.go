// Package plots draws mpdf's figures as PNG: the training curves of a run
// (curve.png: [Curves], [WriteCurves]) and a study's accuracy-against-tokens
// plane (pareto.png: [WritePareto]).
// It owns gonum/plot, so that the packages that produce the numbers
// (trainer/run, study) hand over plain slices and never import a plotting
// library. Drawing is deterministic: the same numbers give the same bytes.
package plots
