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
// # Untrusted files and PyTorch
//
// [Load] trusts no length in a file before checking it and stops at the
// first damage; every error names the file and byte offset and wraps one
// of the sentinel errors ([ErrCorrupt], [ErrTruncated], ...). Every file
// written reads back. [ExportSafetensors] and [SaveSafetensors] write a
// network as the state_dict of a torch.nn.ModuleList of nn.Linear named
// "layers", loaded in PyTorch with load_state_dict(strict=True);
// [ImportSafetensors] and [LoadSafetensors] read such a file from any
// writer, checked as Load checks a checkpoint. [ConfidenceSource] says
// where the confidence of the policy's training states came from
// ("text-critic", "none", "given" or "unknown"), which evaluation and
// serving compare with the confidence they will feed the policy.
//
// The file layouts, the checks in order, the atomic write and the
// retention rules are documented beside their code.
package checkpoints
