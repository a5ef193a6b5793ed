// Package studytest holds what the tests of study's rooms (study/ablate,
// study/compare, study/shards) share: a trainer that trains nothing and
// the shared transcripts as a replay. study's own tests keep their copies
// (this package imports study).
package studytest
