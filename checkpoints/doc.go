// Package checkpoints stores training runs: one compressed file that holds
// everything a run needs to continue exactly (the policy, its frozen KL
// reference, Adam's state, the RNG state, the step, where the data reader
// stands, the resolved configuration and the latest metrics), a Manager that
// keeps the last few of those files and the best one, and the export and
// import of weights as safetensors for PyTorch users (design §5).
//
// # Use
//
//	err := checkpoints.Save("run/ckpt.mpdf", &checkpoints.Checkpoint{Header: h, Policy: p, Adam: a, RNG: rng})
//	c, err := checkpoints.Load("run/ckpt.mpdf") // checks metapolicy.FeatureVersion
//
//	m := &checkpoints.Manager{Dir: "run", KeepLast: 3, BestMetric: "reward", HigherIsBetter: true}
//	path, err := m.Save(c)              // run/ckpt-00000100.mpdf, prunes, updates run/best.mpdf
//	last, err := checkpoints.Latest("run") // resume from here
//
//	err = checkpoints.SaveSafetensors("policy.safetensors", c.Policy, nil)
//
// # File format, version 1
//
// All integers are little-endian.
//
//	offset  size  field
//	0       8     magic "MPDFCKPT"
//	8       4     format version, uint32 (1)
//	12      8     body length U, uint64: the uncompressed body
//	20      8     frame length C, uint64
//	28      C     one zstd frame (RFC 8878) holding the body; window ≤ 8 MiB,
//	              no zstd content checksum
//	28+C    4     CRC-32C (Castagnoli) of bytes [0, 28+C), uint32
//
// The file ends there: its size is exactly 32+C. The body is
//
//	offset  size  field
//	0       4     header length H, uint32
//	4       H     header, JSON
//	4+H     4P    policy parameters, float32, the flat layout of nn.MLP
//	              (layer 0 first, weights [out, in] row-major, then biases)
//	        4P    reference parameters, when "reference" is true
//	        4P    Adam's first moments M, when "adam" is present
//	        4P    Adam's second moments V, when "adam" is present
//	        R     RNG state, R = "rng_bytes" opaque bytes
//
// where P is the parameter count of "model"."sizes", and the body ends there.
// Each float32 array is stored as four byte planes, the shuffle filter of
// HDF5 and Blosc: byte 0 of each little-endian value x[0..P), then byte 1 of
// each, byte 2, byte 3. The planes of sign and exponent are repetitive and
// zstd shrinks them; interleaved with random mantissas it cannot (a 1M-
// parameter checkpoint compresses to about 85% instead of 100%).
// The header is one JSON object: the fields of Header (feature_version, step,
// seed, metrics, train, data_pos) followed by
//
//	"model":     {"sizes": [in, h1, ..., out], "activation": "tanh"|"relu"}
//	"reference": true|false
//	"adam":      {"config": {"lr", "beta1", "beta2", "eps"}, "step": n}  (absent without Adam)
//	"rng_bytes": R
//
// for example {"feature_version":"mpdf-features/v1","step":3,"seed":7,
// "metrics":{"loss":0.125},"train":{...},"data_pos":{...},"model":{"sizes":[4,5,3],
// "activation":"tanh"},"reference":true,"adam":{...},"rng_bytes":20}.
// Readers ignore unknown header fields; a change that older readers would
// misread gets a new format version instead.
//
// # Determinism
//
// The same checkpoint always gives the same bytes: the header is encoded by
// encoding/json (struct field order, map keys sorted; train and data_pos are
// compacted), floats are stored bit for bit, and one zstd encoder with fixed
// settings (default level, one goroutine per call) compresses. The file holds
// no time stamp and no host name. Two runs with the same seed and the same
// data therefore write byte-identical checkpoints, and a run stopped, loaded
// and continued writes the same bytes as one that never stopped. (Another
// version of the zstd library may compress differently; the body, which the
// golden test pins, does not change within a format version.)
//
// # Reading untrusted files
//
// Load, Unmarshal and Decode check, in this order, and stop at the first
// failure, so that each kind of damage gets its own error:
//
//  1. the magic (ErrNotCheckpoint), then the version (ErrVersion);
//  2. a prefix shorter than 28 bytes (ErrTruncated);
//  3. U against the limit, 1 GiB unless WithMaxBytes says otherwise
//     (ErrTooLarge); U ≥ 4, C no larger than zstd's bound for U, and U no
//     more than a C-byte frame can decode to, 32768 bytes per frame byte
//     (ErrCorrupt);
//  4. the file size against 32+C: shorter is ErrTruncated, longer is
//     ErrCorrupt (Unmarshal and Load; Decode reads a stream and stops at the
//     checksum);
//  5. the CRC-32C (ErrCorrupt);
//  6. the frame decodes to exactly U bytes, into a buffer of capacity U that
//     the decoder may not outgrow (ErrCorrupt);
//  7. the body: header JSON, sizes and activation, the body length implied by
//     the header, finite values, V ≥ 0, a valid Adam configuration
//     (ErrCorrupt);
//  8. the feature-schema version against the expected one (ErrFeatureSchema):
//     metapolicy.FeatureVersion unless WithFeatureVersion says otherwise;
//     WithFeatureVersion("") accepts any.
//
// Nothing is allocated from an unchecked length: the lengths are checked
// against the limit, against each other and against the file size first, and
// a stream reader's buffers grow with the bytes that really arrive. A 100-byte
// file cannot make Load allocate more than about 3 MB. Every error names the
// file (Load), the byte offset where it applies, and what was expected, and
// wraps exactly one of the Err values, for errors.Is.
//
// Marshal, Encode, Save and Manager.Save refuse a checkpoint that a reader
// would reject (nil policy, empty feature version, negative step, NaN weight
// or metric, moments of the wrong length, ...), so every file written reads
// back.
//
// # Atomic writes
//
// Save writes to a temporary file ".NAME.tmp-*" in the target's directory,
// syncs it, closes it, renames it over the target and syncs the directory. A
// failure at any point removes the temporary file and leaves the previous file
// untouched; a crash leaves either the old or the new file, never a mix (at
// worst a stray temporary file, which Manager removes). Files are created
// with mode 0644.
//
// # Retention
//
// Manager.Save writes Dir/ckpt-%08d.mpdf (the step, zero-padded), then, when
// BestMetric is set and the checkpoint's metric beats the best so far
// (strictly: ties keep the earlier file; HigherIsBetter chooses the
// direction), writes the same bytes to Dir/best.mpdf, atomically. A fresh
// Manager learns the best so far from best.mpdf, so a resumed run keeps
// ranking against it. A checkpoint without the metric leaves best.mpdf alone.
// Then it removes the step files beyond the KeepLast highest steps (0 keeps
// all), never the file just written, and stray temporary files. Latest
// returns the step file with the highest step. One process writes a directory
// at a time.
//
// The header's "run" and "config_sha256" (Header.Run, ConfigSHA256) say
// which run wrote a checkpoint and with which configuration. A Manager with
// Run set keeps only that run's files: another run's step files are neither
// counted nor removed, and another run's best.mpdf is an error (ErrForeign),
// not replaced. CheckRun refuses, by name, a checkpoint of another run in a
// directory; ReadHeader reads a header without the arrays.
//
// # Safetensors (design §5)
//
// ExportSafetensors writes an nn.MLP[float32] as a safetensors file
// (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON padded with spaces to a multiple of 8, then
// the tensor data. The tensors are "layers.{i}.weight", float32 ("F32") of
// shape [out, in], and "layers.{i}.bias" of shape [out], layer 0 first: the
// state_dict of a torch.nn.ModuleList of nn.Linear named "layers", which a
// PyTorch user loads with load_state_dict(strict=True). The data of the
// tensors follows in the order of their sorted names (so "layers.10" comes
// before "layers.2"), contiguous. "__metadata__" holds string pairs:
// "activation" ("tanh" or "relu", the hidden nonlinearity; the output layer
// is linear), "feature_version" (metapolicy.FeatureVersion unless the caller
// gives another) and "format": "pt", plus any the caller adds. The header is
// spelled as Python's json.dumps(separators=(",", ":")) spells it, so the
// project's reference writer (torch_reference.py's write_safetensors) and this
// one produce the same bytes for the same tensors and metadata; a test runs
// the reference reader and writer on our files to keep it so.
//
// ImportSafetensors reads such a file from any writer and checks it: the
// header length against 100 MB, the limit and the file size; the dtype
// (F32 only: convert with .float() first); the names (only layers.{i}.weight
// and layers.{i}.bias, every layer from 0 present); the shapes ([out, in] and
// [out], each layer's in equal to the previous out); the data offsets (each
// tensor's span holds its elements, and together they tile the data without
// holes or overlaps); finite values; and last the feature-schema version, as
// Load does (a missing "feature_version" does not match). A file without an
// "activation" entry is read as tanh, the project's default. Errors wrap the
// same kinds as Load's.
//
// # Provenance of the confidence
//
// ConfidenceSource derives from a header where the confidence of the
// policy's training states came from — "text-critic", "none", "given" or
// "unknown" — from the environment spec the run recorded (a replay spec's
// critic=on part; see design §6), and ConfidenceSourceOfMeta from a
// safetensors file's "mpdf.confidence_source" (MetaConfidenceSource), which
// mpdf export and a run's policy.safetensors write. Evaluation and serving
// compare it with the confidence they will feed the policy, by one rule
// (CriticMismatch).
//
// ResolvePolicy turns a policy spec — a heuristic name or a policy file —
// into a policy with, from one read of the file, what it records of its
// training: the replay and split its run trained on and its confidence
// source; TrainedReplay, TextCritic and HeldOutSplit say from these how a
// set of learned policies is evaluated when nothing else says.
//
// The safetensors code is written here rather than taken from a library: the
// format is a length, a JSON header and raw floats, a few hundred lines
// cover it; a hand-written reader can bound what it allocates before trusting
// the header and give errors with offsets; and it adds no dependency.
package checkpoints
