#!/usr/bin/python3
"""PyTorch reference for the mpdf meta-policy update (docs/design.md sections 3 and 4).

Two uses:
  bench  time one full update step (forward, SoftRankPO loss with exact KL, backward, Adam)
         of the same MLP that mpdf trains, on random data, as the peer to compare against:
             torch_reference.py bench --batch 4096 --features 32 --hidden 64,64
  step   apply K full-batch update steps to weights read from a safetensors file, on decision
         records read from a JSON Lines file, and write the new weights, so an implementation
         can be checked number for number:
             torch_reference.py step --init w0.safetensors --decisions d.jsonl --out w1.safetensors
         --dtype float64 steps in float64 (weights still read and written as float32), so the
         oracle's own rounding, which follows the BLAS kernels picked for the CPU, stays out of
         a comparison (trainer/oracle_test.go uses it).
         --loss rank-match takes the rank-matching loss instead of the clip loss (design section 4):
         the group-centred implicit reward beta*log(pi/pi_ref) regressed onto the advantages.
         --nets: several networks (decoupled agents, design section 4): the weights file holds
         nets.{k}.layers.* and fallback.layers.* (the reference), each decision record a "net"
         index; each row's loss is computed by its network, the batch mean over all rows, one
         Adam over every network's parameters (with --loss rank-match, each row's log-probability
         by its network and one centring over each group's rows, whatever their networks).
         --arch attention --attn-dim d: the attention network (docs/design.md section 4): the
         weights file holds attn.{q,k,v}.{weight,bias} beside layers.*, the feature rows are
         the peers-v1 layout (26 own features, 7 peer slots of 12, slot feature 0 = present);
         Adam runs over the front's parameters too.

Needs Debian's python3-torch (apt-get install python3-torch libopenblas0-pthread), run with
/usr/bin/python3. Tensor layout: layers.{i}.weight [out, in], layers.{i}.bias [out], float32.
"""
import argparse
import json
import math
import struct
import sys
import time

import torch

ACTIONS = {"persist": 0, "refine": 1, "concede": 2}


DTYPES = {"float32": torch.float32, "float64": torch.float64}


def read_safetensors(path, dtype=torch.float32):
    """The F32 tensors of a safetensors file, as dtype, and its metadata."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    base = 8 + n
    out, meta = {}, header.pop("__metadata__", {})
    for name, info in header.items():
        if info["dtype"] != "F32":
            sys.exit(f"{path}: {name}: dtype {info['dtype']}, want F32")
        a, b = info["data_offsets"]
        t = torch.frombuffer(bytearray(raw[base + a:base + b]), dtype=torch.float32)
        out[name] = t.reshape(info["shape"]).to(dtype).clone()
    return out, meta


def write_safetensors(path, tensors, meta):
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        data = tensors[name].detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    if meta:
        header["__metadata__"] = {k: str(v) for k, v in meta.items()}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def layers_from(tensors, prefix=""):
    n = 0
    while f"{prefix}layers.{n}.weight" in tensors:
        n += 1
    if n == 0:
        sys.exit(f"no {prefix}layers.0.weight in the weights file")
    return [(tensors[f"{prefix}layers.{i}.weight"].requires_grad_(True),
             tensors[f"{prefix}layers.{i}.bias"].requires_grad_(True)) for i in range(n)]


SELF, PEER, SLOTS = 26, 12, 7


def attn_from(tensors, d, prefix=""):
    """The attention front's tensors (docs/design.md section 5), as leaves that need a gradient."""
    out = {}
    for part, fan in (("q", SELF), ("k", PEER), ("v", PEER)):
        w, b = tensors.get(f"{prefix}attn.{part}.weight"), tensors.get(f"{prefix}attn.{part}.bias")
        if w is None or b is None:
            sys.exit(f"--arch attention: no {prefix}attn.{part}.weight/bias in the weights file")
        if list(w.shape) != [d, fan]:
            sys.exit(f"{prefix}attn.{part}.weight has shape {list(w.shape)}, want [{d}, {fan}]")
        out[part] = (w.requires_grad_(True), b.requires_grad_(True))
    return out


def attend(attn, x):
    """h0 = [x_s, c]: softmax over the present slots of q.k_j/sqrt(d), c = sum alpha_j v_j,
    absent slots weighing exactly 0, c = 0 with no peer."""
    xs = x[:, :SELF]
    p = x[:, SELF:SELF + SLOTS * PEER].reshape(x.shape[0], SLOTS, PEER)
    present = p[:, :, 0] != 0
    (wq, bq), (wk, bk), (wv, bv) = attn["q"], attn["k"], attn["v"]
    q = xs @ wq.T + bq                      # B x d
    k = p @ wk.T + bk                       # B x 7 x d
    v = p @ wv.T + bv
    s = (k @ q[:, :, None]).squeeze(2) / math.sqrt(q.shape[1])
    s = s.masked_fill(~present, -1e30)  # finite: a row with no peer stays finite, then weighs 0
    alpha = torch.softmax(s, dim=1)
    alpha = torch.where(present, alpha, torch.zeros_like(alpha))
    c = (alpha[:, :, None] * v).sum(dim=1)
    return torch.cat([xs, c], dim=1)


def logits_of(layers, x, act, attn=None):
    h = x if attn is None else attend(attn, x)
    for i, (w, b) in enumerate(layers):
        h = h @ w.T + b
        if i < len(layers) - 1:
            h = torch.tanh(h) if act == "tanh" else torch.relu(h)
    return h


def softrank_advantages(rewards, groups, tau):
    """design §3 (docs/design.md), per group."""
    adv = torch.zeros_like(rewards)
    normal = torch.distributions.Normal(0.0, 1.0)
    for g in torch.unique(groups):
        idx = (groups == g).nonzero(as_tuple=True)[0]
        r = rewards[idx].double()
        n = r.numel()
        if n < 2 or (r.max() - r.min()) <= 1e-12:
            continue
        c = 1.4826 * torch.quantile((r - torch.quantile(r, 0.5)).abs(), 0.5)  # median: middle pair averaged
        if c <= 1e-12:
            c = r.std(unbiased=False)
        diff = (r[:, None] - r[None, :]) / (tau * c)
        s = torch.sigmoid(diff).sum(dim=1)  # includes j == i, which adds exactly 1/2
        q = normal.icdf((s / n).clamp(1e-12, 1 - 1e-12))
        adv[idx] = (q - q.mean()).to(adv.dtype)
    return adv


def loss_of(layers, ref_logp_all, x, a, blogp, adv, act, eps_low, eps_high, beta, c_h, attn=None):
    logp_all = torch.log_softmax(logits_of(layers, x, act, attn), dim=1)
    logp = logp_all.gather(1, a[:, None]).squeeze(1)
    ratio = torch.exp(torch.clamp(logp - blogp, -20, 20))
    surr = -torch.minimum(ratio * adv, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * adv)
    p = logp_all.exp()
    kl = (p * (logp_all - ref_logp_all)).sum(dim=1)
    ent = -(p * logp_all).sum(dim=1)
    return (surr + beta * kl - c_h * ent).mean()


def rank_match_loss_of(layers, ref_logp_all, x, a, groups, adv, act, beta, c_h, attn=None):
    """design section 4, the rank-matching loss: h = beta*(log pi(a|x) - log pi_ref(a|x)),
    centred by the mean over the rows of its group, mean (h_c - A)^2 - c_H*mean H.
    No separate KL term: beta already ties h to pi_ref."""
    logp_all = torch.log_softmax(logits_of(layers, x, act, attn), dim=1)
    logp = logp_all.gather(1, a[:, None]).squeeze(1)
    ref = ref_logp_all.gather(1, a[:, None]).squeeze(1)
    h = beta * (logp - ref)
    n_groups = int(groups.max().item()) + 1
    total = torch.zeros(n_groups, dtype=h.dtype).index_add(0, groups, h)
    count = torch.zeros(n_groups, dtype=h.dtype).index_add(0, groups, torch.ones_like(h))
    hc = h - (total / count)[groups]
    p = logp_all.exp()
    ent = -(p * logp_all).sum(dim=1)
    return ((hc - adv) ** 2).mean() - c_h * ent.mean()


def nets_loss_of(nets, ref_logp_all, x, a, net, blogp, adv, act, eps_low, eps_high, beta, c_h):
    """The clip loss over several networks: row i's terms by network net[i], the mean over
    every row of the batch (so network k's gradient is its rows' share of the whole)."""
    total = torch.zeros((), dtype=x.dtype)
    for k, layers in enumerate(nets):
        idx = (net == k).nonzero(as_tuple=True)[0]
        if idx.numel() == 0:
            continue
        part = loss_of(layers, ref_logp_all[idx], x[idx], a[idx], blogp[idx], adv[idx], act,
                       eps_low, eps_high, beta, c_h)
        total = total + part * (idx.numel() / x.shape[0])
    return total


def nets_rank_match_loss_of(nets, ref_logp_all, x, a, net, groups, adv, act, beta, c_h):
    """The rank-matching loss over several networks: row i's log-probabilities by network
    net[i], then one loss over the batch, the centring over each group's rows whatever their
    networks (design section 4, decoupled agents)."""
    logp_all = torch.zeros(x.shape[0], len(ACTIONS), dtype=x.dtype)
    for k, layers in enumerate(nets):
        idx = (net == k).nonzero(as_tuple=True)[0]
        if idx.numel():
            part = torch.log_softmax(logits_of(layers, x[idx], act), dim=1)
            logp_all = logp_all.index_copy(0, idx, part)
    logp = logp_all.gather(1, a[:, None]).squeeze(1)
    ref = ref_logp_all.gather(1, a[:, None]).squeeze(1)
    h = beta * (logp - ref)
    n_groups = int(groups.max().item()) + 1
    total = torch.zeros(n_groups, dtype=h.dtype).index_add(0, groups, h)
    count = torch.zeros(n_groups, dtype=h.dtype).index_add(0, groups, torch.ones_like(h))
    hc = h - (total / count)[groups]
    ent = -(logp_all.exp() * logp_all).sum(dim=1)
    return ((hc - adv) ** 2).mean() - c_h * ent.mean()


def read_decisions(path, nets=False):
    """The decision records of a JSONL file: features, action ids, rewards,
    group numbers (by first appearance), behaviour log-probs (None when
    absent) and, with nets, each row's network number (else None)."""
    feats, acts, rewards, groups, blogps, net, gid = [], [], [], [], [], [], {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            feats.append(r["features"])
            acts.append(ACTIONS[r["action"]])
            rewards.append(float(r["reward"]))
            groups.append(gid.setdefault(str(r.get("group", "")), len(gid)))
            blogps.append(r.get("logprob"))
            if nets:
                net.append(int(r["net"]))
    return feats, acts, rewards, groups, blogps, (net if nets else None)


def cmd_step_nets(args):
    dt = DTYPES[args.dtype]
    tensors, meta = read_safetensors(args.init, dt)
    nets = []
    while f"nets.{len(nets)}.layers.0.weight" in tensors:
        nets.append(layers_from(tensors, f"nets.{len(nets)}."))
    if not nets:
        sys.exit("--nets: no nets.0.layers.0.weight in the weights file")
    ref_layers = layers_from(tensors, "fallback.")
    feats, acts, rewards, groups, blogps, net = read_decisions(args.decisions, nets=True)
    x = torch.tensor(feats, dtype=dt)
    a = torch.tensor(acts)
    net = torch.tensor(net)
    adv = softrank_advantages(torch.tensor(rewards, dtype=torch.float64),
                              torch.tensor(groups), args.tau).to(dt)
    with torch.no_grad():
        ref = torch.log_softmax(logits_of(ref_layers, x, args.activation), dim=1)
        start = torch.zeros(x.shape[0], dtype=dt)
        for k, layers in enumerate(nets):
            idx = (net == k).nonzero(as_tuple=True)[0]
            lp = torch.log_softmax(logits_of(layers, x[idx], args.activation), dim=1)
            start[idx] = lp.gather(1, a[idx][:, None]).squeeze(1)
    blogp = torch.tensor([start[i].item() if v is None else float(v)
                          for i, v in enumerate(blogps)], dtype=dt)
    params = [p for layers in nets for wb in layers for p in wb]
    opt = torch.optim.Adam(params, lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    for _ in range(args.steps):
        opt.zero_grad()
        if args.loss == "rank-match":
            loss = nets_rank_match_loss_of(nets, ref, x, a, net, torch.tensor(groups), adv,
                                           args.activation, args.beta, args.entropy)
        else:
            loss = nets_loss_of(nets, ref, x, a, net, blogp, adv, args.activation,
                                args.eps_low, args.eps_high, args.beta, args.entropy)
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.9g}")
    out = {}
    for k, layers in enumerate(nets):
        for i, (w, b) in enumerate(layers):
            out[f"nets.{k}.layers.{i}.weight"], out[f"nets.{k}.layers.{i}.bias"] = w, b
    for i, (w, b) in enumerate(ref_layers):
        out[f"fallback.layers.{i}.weight"], out[f"fallback.layers.{i}.bias"] = w, b
    write_safetensors(args.out, out, meta)


def cmd_step(args):
    if args.nets:
        if args.arch != "mlp":
            sys.exit("--nets: the mlp only")
        return cmd_step_nets(args)
    dt = DTYPES[args.dtype]
    tensors, meta = read_safetensors(args.init, dt)
    layers = layers_from(tensors)
    attn = attn_from(tensors, args.attn_dim) if args.arch == "attention" else None
    feats, acts, rewards, groups, blogps, _ = read_decisions(args.decisions)
    x = torch.tensor(feats, dtype=dt)
    a = torch.tensor(acts)
    adv = softrank_advantages(torch.tensor(rewards, dtype=torch.float64),
                              torch.tensor(groups), args.tau).to(dt)
    with torch.no_grad():
        start_logp_all = torch.log_softmax(logits_of(layers, x, args.activation, attn), dim=1)
        start_logp = start_logp_all.gather(1, a[:, None]).squeeze(1)
    blogp = torch.tensor([start_logp[i].item() if v is None else float(v)
                          for i, v in enumerate(blogps)], dtype=dt)
    ref = start_logp_all  # the initial policy is the reference
    params = [p for wb in layers for p in wb]
    if attn is not None:
        params += [p for part in ("q", "k", "v") for p in attn[part]]
    opt = torch.optim.Adam(params, lr=args.lr, betas=(0.9, 0.999), eps=1e-8)
    for _ in range(args.steps):
        opt.zero_grad()
        if args.loss == "rank-match":
            loss = rank_match_loss_of(layers, ref, x, a, torch.tensor(groups), adv,
                                      args.activation, args.beta, args.entropy, attn)
        else:
            loss = loss_of(layers, ref, x, a, blogp, adv, args.activation,
                           args.eps_low, args.eps_high, args.beta, args.entropy, attn)
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.9g}")
    out = {}
    for i, (w, b) in enumerate(layers):
        out[f"layers.{i}.weight"], out[f"layers.{i}.bias"] = w, b
    for part, (w, b) in (attn or {}).items():
        out[f"attn.{part}.weight"], out[f"attn.{part}.bias"] = w, b
    write_safetensors(args.out, out, meta)


def cmd_bench(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    dt = DTYPES[args.dtype]
    sizes = [args.features] + [int(h) for h in args.hidden.split(",")] + [3]
    layers = []
    for i in range(len(sizes) - 1):
        w = (torch.randn(sizes[i + 1], sizes[i], dtype=dt) / math.sqrt(sizes[i])).requires_grad_(True)
        b = torch.zeros(sizes[i + 1], dtype=dt, requires_grad=True)
        layers.append((w, b))
    B = args.batch
    x = torch.randn(B, args.features, dtype=dt)
    a = torch.randint(0, 3, (B,))
    adv = torch.randn(B, dtype=dt)
    with torch.no_grad():
        ref = torch.log_softmax(logits_of(layers, x, args.activation), dim=1)
        blogp = ref.gather(1, a[:, None]).squeeze(1)
    params = [p for wb in layers for p in wb]
    opt = torch.optim.Adam(params, lr=3e-4)

    def step():
        opt.zero_grad()
        loss = loss_of(layers, ref, x, a, blogp, adv, args.activation, 0.2, 0.2, 0.05, 0.0)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    reps = max(3, 200000 // B)
    best = float("inf")
    for _ in range(args.rounds):
        t = time.perf_counter()
        for _ in range(reps):
            step()
        best = min(best, (time.perf_counter() - t) / reps)
    print(f"torch {torch.__version__} threads={args.threads} dtype={args.dtype} batch={B} "
          f"features={args.features} hidden={args.hidden} step_ms={best * 1e3:.3f} "
          f"samples_per_s={B / best:.0f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bench")
    b.add_argument("--batch", type=int, default=4096)
    b.add_argument("--features", type=int, default=32)
    b.add_argument("--hidden", default="64,64")
    b.add_argument("--activation", default="tanh", choices=["tanh", "relu"])
    b.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--rounds", type=int, default=5)
    s = sub.add_parser("step")
    s.add_argument("--init", required=True)
    s.add_argument("--decisions", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--steps", type=int, default=1)
    s.add_argument("--lr", type=float, default=3e-4)
    s.add_argument("--tau", type=float, default=0.8)
    s.add_argument("--beta", type=float, default=0.05)
    s.add_argument("--entropy", type=float, default=0.0)
    s.add_argument("--eps-low", type=float, default=0.2)
    s.add_argument("--eps-high", type=float, default=0.2)
    s.add_argument("--activation", default="tanh", choices=["tanh", "relu"])
    s.add_argument("--loss", default="clip", choices=["clip", "rank-match"])
    s.add_argument("--arch", default="mlp", choices=["mlp", "attention"])
    s.add_argument("--attn-dim", type=int, default=16)
    s.add_argument("--dtype", default="float32", choices=sorted(DTYPES),
                   help="the step's arithmetic; float64 takes the oracle's own rounding out of a comparison "
                        "(weights are read and written as float32 either way)")
    s.add_argument("--nets", action="store_true", help="several networks: nets.{k}.* and fallback.* (the reference)")
    args = p.parse_args()
    cmd_bench(args) if args.cmd == "bench" else cmd_step(args)


if __name__ == "__main__":
    main()
