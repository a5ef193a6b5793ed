package env

// For the external tests' reference runner (play_batch_test.go).
var EpisodeRNG = episodeRNG

const StreamEnv, StreamPolicy = streamEnv, streamPolicy
