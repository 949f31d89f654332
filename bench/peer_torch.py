"""The PyTorch side of `npm run bench:peer` (bench/peer.ts writes the config and the data, and reads the answer).

Usage: /usr/bin/python3 bench/peer_torch.py CONFIG.json

Builds the job's model from its gensyn layer list as ordinary PyTorch modules, trains it with the same optimizer,
learning-rate schedule and gradient clipping on the same batches (the sample rows of every step, exported by the
bench), and times `timedSteps` steps per repeat after `warmupSteps` untimed ones, at `threads` threads
(torch.set_num_threads; the bench also sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS, which a generic-BLAS
build of PyTorch such as Debian's cannot set itself). The answer is one JSON line on stdout: {"torch": version,
"blas": the BLAS library loaded, "seconds": [...]}, or {"unsupported": reason} for a model this script cannot
build (the bench lists the job with that reason).

With "device": "cuda" in the config (bench/gpu.ts) the model and the data live on the GPU, each window ends with
torch.cuda.synchronize() so it counts the kernels it queued, and the answer names the GPU ("device").
"""

import json
import math
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


class Unsupported(Exception):
    pass


ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "gelu": nn.GELU, "linear": nn.Identity}


def activation(name, is_last):
    # a last softmax is left to the loss (cross-entropy over logits), as gensyn's forward does
    if name == "softmax":
        return nn.Identity() if is_last else nn.Softmax(dim=-1)
    return ACTIVATIONS[name]()


def pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


class Residual(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, x):
        return x + self.block(x)


class Positional(nn.Module):
    def __init__(self, sequence, width):
        super().__init__()
        self.table = nn.Parameter(torch.randn(sequence, width) * 0.02)

    def forward(self, x):
        return x + self.table


class SelfAttention(nn.Module):
    def __init__(self, width, heads, causal, sequence):
        super().__init__()
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        mask = torch.triu(torch.full((sequence, sequence), float("-inf")), diagonal=1) if causal else None
        self.register_buffer("mask", mask)

    def forward(self, x):
        return self.attention(x, x, x, attn_mask=self.mask, need_weights=False)[0]


class GlobalAverage(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3)) if x.dim() == 4 else x.mean(dim=1)


def window_layer(layer, shape):
    """maxPooling2d / avgPooling2d on an NCHW tensor; `shape` is gensyn's [h, w, c]."""
    if layer.get("padding", "valid") != "valid":
        raise Unsupported(f"{layer['type']} with padding {layer['padding']} (PyTorch pools pad symmetrically, TensorFlow's 'same' does not)")
    size = pair(layer["poolSize"])
    strides = pair(layer.get("strides") or layer["poolSize"])
    pool = nn.MaxPool2d(size, strides) if layer["type"] == "maxPooling2d" else nn.AvgPool2d(size, strides)
    h, w, c = shape
    return pool, [(h - size[0]) // strides[0] + 1, (w - size[1]) // strides[1] + 1, c]


def conv_layer(layer, shape, is_last):
    h, w, c = shape
    kernel = pair(layer["kernelSize"])
    strides = pair(layer.get("strides", 1))
    padding = layer.get("padding", "valid")
    if padding == "same" and strides != (1, 1):
        raise Unsupported("conv2d with padding 'same' and a stride above 1 (PyTorch's 'same' needs stride 1)")
    conv = nn.Conv2d(c, layer["filters"], kernel, strides, padding=padding)
    if padding == "same":
        out = [h, w, layer["filters"]]
    else:
        out = [(h - kernel[0]) // strides[0] + 1, (w - kernel[1]) // strides[1] + 1, layer["filters"]]
    return nn.Sequential(conv, activation(layer.get("activation", "linear"), is_last)), out


def build(layers, shape, top=True):
    """nn.Sequential of gensyn's layer list over per-sample `shape` (gensyn's, channels last), and its output shape."""
    modules = []
    for i, layer in enumerate(layers):
        kind = layer["type"]
        is_last = top and i == len(layers) - 1
        if kind == "dense":
            modules.append(nn.Linear(shape[-1], layer["units"]))
            modules.append(activation(layer.get("activation", "linear"), is_last))
            shape = shape[:-1] + [layer["units"]]
        elif kind == "conv2d":
            module, shape = conv_layer(layer, shape, is_last)
            modules.append(module)
        elif kind in ("maxPooling2d", "avgPooling2d"):
            module, shape = window_layer(layer, shape)
            modules.append(module)
        elif kind == "flatten":
            modules.append(nn.Flatten())
            shape = [int(np.prod(shape))]
        elif kind == "globalAveragePooling":
            modules.append(GlobalAverage())
            shape = shape[-1:]
        elif kind == "dropout":
            modules.append(nn.Dropout(layer["rate"]))
        elif kind == "embedding":
            modules.append(nn.Embedding(layer["vocabulary"], layer["units"]))
            shape = shape + [layer["units"]]
        elif kind == "positionalEmbedding":
            modules.append(Positional(shape[0], shape[1]))
        elif kind == "layerNormalization":
            modules.append(nn.LayerNorm(shape[-1], eps=layer.get("epsilon", 1e-5)))
        elif kind == "multiHeadAttention":
            modules.append(SelfAttention(shape[-1], layer["heads"], layer.get("causal", True), shape[0]))
        elif kind == "residual":
            block, _ = build(layer["layers"], shape, top=False)
            modules.append(Residual(block))
        else:
            raise Unsupported(f"layer type {kind}")
    return nn.Sequential(*modules), shape


def optimizer_for(config, params):
    spec = config["optimizer"]
    if spec["type"] == "sgd":
        return torch.optim.SGD(params, lr=spec["learningRate"], momentum=spec.get("momentum") or 0)
    betas = (spec["beta1"], spec["beta2"])
    if spec["type"] == "adam":
        return torch.optim.Adam(params, lr=spec["learningRate"], betas=betas, eps=spec["epsilon"])
    return torch.optim.AdamW(params, lr=spec["learningRate"], betas=betas, eps=spec["epsilon"], weight_decay=spec["weightDecay"])


def learning_rate(config, step):
    """gensyn's learningRateAt: linear warm-up, then constant or cosine to minLearningRate."""
    lr = config["optimizer"]["learningRate"]
    schedule = config.get("schedule")
    if not schedule:
        return lr
    warmup = schedule["warmupSteps"]
    if step < warmup:
        return lr * (step + 1) / warmup
    if schedule.get("decay", "cosine") == "constant" or config["steps"] <= warmup:
        return lr
    low = schedule.get("minLearningRate", 0)
    return low + (lr - low) * (1 + math.cos(math.pi * (step - warmup) / (config["steps"] - warmup))) / 2


def loss_for(config):
    kind = config["loss"]
    if kind == "crossEntropy":
        classes = config["classes"]
        return lambda out, y: F.cross_entropy(out.reshape(-1, classes), y.reshape(-1))
    return F.mse_loss if kind == "mse" else F.l1_loss


def load_data(config):
    shape = config["model"]["inputShape"]
    x = torch.from_numpy(np.load(config["features"]))
    x = x.reshape(x.shape[0], *shape)
    if len(shape) == 3:
        x = x.permute(0, 3, 1, 2).contiguous()  # gensyn's NHWC rows as PyTorch's NCHW, once, outside the timing
    if config["model"]["layers"][0]["type"] == "embedding":
        x = x.long()
    y = torch.from_numpy(np.load(config["targets"]))
    y = y.long() if config["loss"] == "crossEntropy" else y.float()
    if config["loss"] == "crossEntropy" and y.dim() == 2 and y.shape[1] == 1:
        y = y[:, 0]
    indices = torch.from_numpy(np.load(config["indices"]).astype(np.int64))
    device = config.get("device", "cpu")
    return x.to(device), y.to(device), indices.to(device)


def time_threads(config, data, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(config["seed"])
    model, _ = build(config["model"]["layers"], list(config["model"]["inputShape"]))
    model.to(config.get("device", "cpu"))
    model.train()
    optimizer = optimizer_for(config, model.parameters())
    loss_of = loss_for(config)
    x, y, indices = data
    clip = config.get("clipNorm")

    def run(first, count):
        for step in range(first, first + count):
            rows = indices[step]
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(config, step)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_of(model(x.index_select(0, rows)), y.index_select(0, rows))
            loss.backward()
            if clip is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()

    warmup, timed = config["warmupSteps"], config["timedSteps"]
    run(0, warmup)
    synchronize(config)
    seconds = []
    for repeat in range(config["repeats"]):
        started = time.perf_counter()
        run(warmup + repeat * timed, timed)
        synchronize(config)
        seconds.append(time.perf_counter() - started)
    return seconds


def synchronize(config):
    """Waits for the GPU's queued kernels: a CUDA step returns before its kernels have run."""
    if config.get("device", "cpu") != "cpu":
        torch.cuda.synchronize()


def device_name(config):
    device = config.get("device", "cpu")
    return torch.cuda.get_device_name() if device != "cpu" else "cpu"


def blas_library():
    """The BLAS shared library this process has loaded (Debian's PyTorch takes whichever libblas.so.3 is selected)."""
    with open("/proc/self/maps") as maps:
        names = {line.split()[-1] for line in maps if "blas" in line.lower() and ".so" in line}
    return ", ".join(sorted(names)) or "none found"


def main():
    with open(sys.argv[1]) as file:
        config = json.load(file)
    try:
        build(config["model"]["layers"], list(config["model"]["inputShape"]))
    except Unsupported as reason:
        print(json.dumps({"unsupported": str(reason)}))
        return
    data = load_data(config)
    seconds = time_threads(config, data, config["threads"])
    print(json.dumps({"torch": torch.__version__, "blas": blas_library(), "device": device_name(config), "seconds": seconds}))


if __name__ == "__main__":
    main()
