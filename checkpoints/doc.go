// Package checkpoints saves and loads training runs, and exports policies
// for PyTorch (design §5). A checkpoint is one compressed file that holds
// everything a run needs to continue exactly: the policy, its frozen KL
// reference, Adam's state, the RNG state, the step, where the data reader
// stands, the resolved configuration and the latest metrics.
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
// [Save] writes atomically: a crash leaves the old file or the new one,
// never a mix. A [Manager] keeps the last few step files of a run
// ([StepName]) and the best one, best.mpdf, and never touches another run's
// files ([Header].Run, [CheckRun]). [Latest] names the file to resume from.
// The same checkpoint always gives the same bytes, so two runs with the same
// seed and data write identical files.
//
// [LoadPolicy] reads a checkpoint or a safetensors file as a
// metapolicy.Policy, [LoadNetwork] as a network; [Inspect] describes a file
// (mpdf inspect) and [Export] writes a checkpoint's weights as safetensors
// (mpdf export). [ReadHeader] reads a header without the arrays.
// [ResolvePolicy] turns a policy spec — a heuristic name or a policy file —
// into a policy with, from one read of the file, the replay and split its
// run trained on and its confidence source; [CriticMismatch] is the one rule
// by which eval and serve compare that source with the confidence they feed.
//
// # Reading untrusted files
//
// [Load], [Unmarshal] and [Decode] check a file before they trust any length
// in it, allocate nothing from an unchecked length, and stop at the first
// damage: every error names the file, the byte offset and what was expected,
// and wraps exactly one of [ErrNotCheckpoint], [ErrVersion], [ErrTruncated],
// [ErrTooLarge], [ErrCorrupt] or [ErrFeatureSchema], for errors.Is. A file
// larger than 1 GiB decompressed is refused unless [WithMaxBytes] says
// otherwise; a policy of another feature layout unless [WithFeatureVersion]
// says otherwise. Writers refuse a checkpoint a reader would reject, so every
// file written reads back.
//
// # Safetensors
//
// [ExportSafetensors] and [SaveSafetensors] write a network as the
// state_dict of a torch.nn.ModuleList of nn.Linear named "layers"
// ("layers.{i}.weight" [out, in] and "layers.{i}.bias", float32), which a
// PyTorch user loads with load_state_dict(strict=True); [ImportSafetensors]
// and [LoadSafetensors] read such a file from any writer, checked as Load
// checks a checkpoint.
//
// [ConfidenceSource] says, from a header, where the confidence of the
// policy's training states came from ("text-critic", "none", "given" or
// "unknown"); [ConfidenceSourceOfMeta] says it of a safetensors file.
// Evaluation and serving compare it with the confidence they will feed the
// policy.
//
// The file layouts, the checks in order, the atomic write and the retention
// rules are documented beside their code: format.go, body.go, file.go,
// manager.go, owner.go, safetensors.go.
package checkpoints
